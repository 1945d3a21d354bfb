/**
 * The on-disk format of a scope's memory cards (`cards.jsonl`): an append-only log of JSON lines.
 *
 * ```text
 * {"format":"ctxmem-memory-log","version":2,"generation":"<random>"}
 * {"put":[<card>, <card>, …]}
 * {"remove":["<id>", …]}
 * ```
 *
 * The first line names the format and a generation, new each time the log is rewritten
 * (compaction, recovery), so a reader that remembers how far it read can tell "more lines were
 * appended" (same generation: read only the tail) from "the file was replaced" (read it again).
 * Every later line is one committed change, applied in order: `put` adds cards or replaces them
 * whole (a near duplicate's merged tags, an older card marked `supersededBy`), `remove` deletes
 * cards by id. One `add` call is one line, written with a single append and fsync, so other
 * processes see all of it or none of it.
 *
 * Damage: an unterminated last line is a write cut short by a crash, never acknowledged, and is
 * dropped quietly; a complete line that is not a valid record is corruption (see
 * `CorruptionMode`), reported and recovered from by the store.
 */
import { randomUUID } from 'node:crypto';
import type { MemoryCard, Scope } from '../contracts/index.js';
import { isSafeId } from '../storage/index.js';
import { validateStoredCard } from './card-records.js';

export const CARD_LOG_FORMAT = 'ctxmem-memory-log';
export const CARD_LOG_VERSION = 2;

/** One committed change. */
export type CardLogRecord = { put: MemoryCard[] } | { remove: string[] };

export const newLogGeneration = (): string => randomUUID();

export function logHeader(generation: string): string {
  return `${JSON.stringify({ format: CARD_LOG_FORMAT, version: CARD_LOG_VERSION, generation })}\n`;
}

export function logLine(record: CardLogRecord): string {
  return `${JSON.stringify(record)}\n`;
}

/** Cards per `put` line when a whole log is written: lines stay small enough to salvage. */
const SNAPSHOT_CHUNK = 1000;

/** A whole log holding `cards` (compaction, recovery, migration). */
export function serializeCardLog(generation: string, cards: readonly MemoryCard[]): string {
  const parts = [logHeader(generation)];
  for (let start = 0; start < cards.length; start += SNAPSHOT_CHUNK) {
    parts.push(logLine({ put: cards.slice(start, start + SNAPSHOT_CHUNK) }));
  }
  return parts.join('');
}

/** The generation named by a header line, or undefined when the line is not a header. */
export function parseLogHeader(line: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  const header = value as { format?: unknown; version?: unknown; generation?: unknown } | null;
  if (
    header === null ||
    typeof header !== 'object' ||
    header.format !== CARD_LOG_FORMAT ||
    header.version !== CARD_LOG_VERSION ||
    typeof header.generation !== 'string' ||
    header.generation === ''
  ) {
    return undefined;
  }
  return header.generation;
}

/** A parsed line: the valid part of its change, and how many of its entries were damaged. */
export interface ParsedLogLine {
  put: MemoryCard[];
  remove: string[];
  damaged: number;
}

/**
 * Parses one complete record line. Cards that are invalid or of another scope count as damaged
 * (the rest of the line is kept); a line that is not JSON, or not a record, is damaged as a whole.
 */
export function parseLogLine(line: string, scope: Scope): ParsedLogLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { put: [], remove: [], damaged: 1 };
  }
  const record = value as { put?: unknown; remove?: unknown } | null;
  if (record === null || typeof record !== 'object') return { put: [], remove: [], damaged: 1 };
  const parsed: ParsedLogLine = { put: [], remove: [], damaged: 0 };
  if (Array.isArray(record.put)) {
    for (const item of record.put) {
      const card = validateStoredCard(item, scope);
      if (card) parsed.put.push(card);
      else parsed.damaged++;
    }
  } else if (Array.isArray(record.remove)) {
    for (const id of record.remove) {
      if (isSafeId(id)) parsed.remove.push(id);
      else parsed.damaged++;
    }
  } else {
    parsed.damaged = 1;
  }
  return parsed;
}

/** What reading (part of) a log gave. */
export interface ReadLogLines {
  lines: ParsedLogLine[];
  /** Bytes consumed: up to and including the last newline. Later bytes are an unfinished line. */
  consumed: number;
  /** Damaged entries in the consumed lines. */
  damaged: number;
}

/**
 * Parses the complete lines of `bytes` (a part of the log after its header). Bytes after the last
 * newline are not consumed: a write in progress, or one cut short by a crash.
 */
export function parseLogLines(bytes: Buffer, scope: Scope): ReadLogLines {
  const end = bytes.lastIndexOf(0x0a) + 1;
  const result: ReadLogLines = { lines: [], consumed: end, damaged: 0 };
  let start = 0;
  while (start < end) {
    const newline = bytes.indexOf(0x0a, start);
    const line = bytes.toString('utf8', start, newline);
    start = newline + 1;
    if (line.trim() === '') continue;
    const parsed = parseLogLine(line, scope);
    result.damaged += parsed.damaged;
    result.lines.push(parsed);
  }
  return result;
}

/** Card entries a line writes (its share of the log's size, for the garbage count). */
export const lineEntries = (line: ParsedLogLine): number => line.put.length + line.remove.length;

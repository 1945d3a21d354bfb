/**
 * One scope's card log as a process knows it (`LogState`): the card index of the cards the log
 * describes, and how far the file was read. Built by parsing a whole log, and kept up to date with
 * the lines appended since (see `card-log-files.ts`).
 */
import type { MemoryCard, Scope } from '../contracts/index.js';
import { type CardIndex, createCardIndex } from './card-index.js';
import { lineEntries, parseLogHeader, parseLogLines, type ReadLogLines } from './card-log.js';

/** What this process knows of one scope's log: its cards, and how far it has read the file. */
export interface LogState {
  index: CardIndex;
  /** Whether the log file exists (a scope with no writes yet has none). */
  exists: boolean;
  /** Identity of the file read: a rewrite (compaction) replaces it with a new inode. */
  ino: number;
  /** The header line, compared on each read in case the file system reused an inode. */
  header: string;
  /** Bytes read and applied: everything up to and including the last complete line. */
  offset: number;
  /** Card entries the log holds (puts and removes), current or not: garbage is this − cards. */
  entries: number;
}

export interface LoadedLog {
  state: LogState;
  /** Damaged entries or lines; 0 for a healthy log. */
  damaged: number;
  reason?: string;
  /** The file's size: more than `state.offset` when it ends in an unfinished line. */
  size: number;
  /** Set when the scope has no log yet but a `cards.json` of an earlier version. */
  legacy?: boolean;
}

/** Applies parsed lines to an index, in order. */
export function applyLines(index: CardIndex, lines: ReadLogLines['lines']): void {
  for (const line of lines) {
    if (line.put.length > 0) index.put(line.put);
    if (line.remove.length > 0) index.remove(line.remove);
  }
}

/** The cards a whole log describes, in the order the index would hold them. */
function replay(lines: ReadLogLines['lines']): MemoryCard[] {
  const cards = new Map<string, MemoryCard>();
  for (const line of lines) {
    for (const card of line.put) cards.set(card.id, card);
    for (const id of line.remove) cards.delete(id);
  }
  return [...cards.values()];
}

/** Parses a whole log file; every line that cannot be read is counted as damaged. */
export function parseLog(bytes: Buffer, ino: number, scope: Scope): LoadedLog {
  const firstNewline = bytes.indexOf(0x0a);
  const firstLine = bytes.toString('utf8', 0, firstNewline === -1 ? bytes.length : firstNewline);
  const generation = firstNewline === -1 ? undefined : parseLogHeader(firstLine);
  // Without a valid header, salvage every line that is a record (the first one included).
  const bodyStart = generation === undefined ? 0 : firstNewline + 1;
  const {
    lines,
    consumed,
    damaged: damagedEntries,
  } = parseLogLines(bytes.subarray(bodyStart), scope);
  const damaged = generation === undefined ? Math.max(damagedEntries, 1) : damagedEntries;
  const state: LogState = {
    index: createCardIndex(replay(lines)),
    exists: true,
    ino,
    header: generation === undefined ? '' : `${firstLine}\n`,
    offset: bodyStart + consumed,
    entries: lines.reduce((sum, line) => sum + lineEntries(line), 0),
  };
  const size = bytes.length;
  if (damaged === 0) return { state, damaged, size };
  const reason =
    generation === undefined
      ? 'the file does not start with a ctxmem memory log header'
      : `${damaged} entr${damaged === 1 ? 'y is' : 'ies are'} damaged, invalid or of another scope`;
  return { state, damaged, reason, size };
}

export function emptyState(): LogState {
  return { index: createCardIndex(), exists: false, ino: -1, header: '', offset: 0, entries: 0 };
}

/**
 * Positions in a scope's card log (`cards.jsonl`), so that a reader that derived something from
 * the log (memory search's saved indexes) can later read only the lines appended since, instead
 * of the whole log. A position is only trusted when the log still starts with the same header
 * (a compaction writes a new generation) and the bytes just before it are unchanged.
 */
import { createHash } from 'node:crypto';
import { type FileHandle, open } from 'node:fs/promises';
import type { MemoryCard, Scope } from '../contracts/index.js';
import { hasErrorCode, readFileRange } from '../storage/index.js';
import { parseLogLines } from './card-log.js';

/** Where a log was read up to: its header line and the bytes of complete lines. */
export interface LogPosition {
  /** The header line, newline included: names the log's generation. */
  header: string;
  /** Bytes read: everything up to and including the last complete line. */
  offset: number;
}

/** A position with a fingerprint of the bytes before it, checked when it is used again. */
export interface CheckedLogPosition extends LogPosition {
  /** Hash of the up to `TAIL_BYTES` bytes before `offset` (after the header). */
  tail: string;
}

/** The changes a log's appended lines hold, and the position after them. */
export interface LogChanges {
  position: CheckedLogPosition;
  /** Cards put since (superseded ones included: they mean "gone"), in log order. */
  changed: MemoryCard[];
  /** Ids removed since. */
  removed: string[];
}

const TAIL_BYTES = 4096;

const tailHash = (bytes: Buffer) => createHash('sha1').update(bytes).digest('hex');

/** The log opened for reading, or undefined when it does not exist. */
async function openIfExists(path: string): Promise<FileHandle | undefined> {
  try {
    return await open(path, 'r');
  } catch (error) {
    if (hasErrorCode(error, 'ENOENT', 'ENOTDIR')) return undefined;
    throw error;
  }
}

function tailStart({ header, offset }: LogPosition): number {
  return Math.max(Buffer.byteLength(header), offset - TAIL_BYTES);
}

/**
 * The checked form of `position` in the log at `path`, or undefined when the log no longer starts
 * with its header or is shorter (rewritten or gone).
 */
export async function checkLogPosition(
  path: string,
  position: LogPosition,
): Promise<CheckedLogPosition | undefined> {
  const handle = await openIfExists(path);
  if (!handle) return undefined;
  try {
    const header = await readFileRange(handle, 0, Buffer.byteLength(position.header));
    if (header.toString('utf8') !== position.header) return undefined;
    const start = tailStart(position);
    const tail = await readFileRange(handle, start, position.offset);
    if (tail.length !== position.offset - start) return undefined;
    return { ...position, tail: tailHash(tail) };
  } finally {
    await handle.close();
  }
}

/**
 * What was appended to the log at `path` since `since`, reading only the bytes after it (and the
 * few before it that check it). Undefined when `since` cannot be trusted (another generation, a
 * shorter file, other bytes before it) or a new line is damaged: then the whole log must be read,
 * through the store, which also recovers a damaged one.
 */
export async function readLogChangesSince(
  path: string,
  scope: Scope,
  since: CheckedLogPosition,
): Promise<LogChanges | undefined> {
  const handle = await openIfExists(path);
  if (!handle) return undefined;
  try {
    const { size } = await handle.stat();
    if (size < since.offset) return undefined;
    const headerLength = Buffer.byteLength(since.header);
    const header = await readFileRange(handle, 0, headerLength);
    if (header.toString('utf8') !== since.header) return undefined;
    const start = tailStart(since);
    const bytes = await readFileRange(handle, start, size);
    const before = since.offset - start;
    if (bytes.length < before || tailHash(bytes.subarray(0, before)) !== since.tail) {
      return undefined;
    }
    const appended = parseLogLines(bytes.subarray(before), scope);
    if (appended.damaged > 0) return undefined;
    const offset = since.offset + appended.consumed;
    const changed: MemoryCard[] = [];
    const removed: string[] = [];
    for (const line of appended.lines) {
      changed.push(...line.put);
      removed.push(...line.remove);
    }
    const position = { header: since.header, offset };
    const tail = tailHash(bytes.subarray(tailStart(position) - start, offset - start));
    return { position: { ...position, tail }, changed, removed };
  } finally {
    await handle.close();
  }
}

import { mkdir, open, readFile, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fsyncDirectory } from './atomic-write.js';
import { hasErrorCode, withStorageErrors } from './storage-error.js';

const NEWLINE = 0x0a;
const CHUNK_BYTES = 64 * 1024;

type FileHandle = Awaited<ReturnType<typeof open>>;

/** Parses one line, or returns `undefined` when it is not JSON. */
function parseLine(line: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(line) };
  } catch {
    return undefined;
  }
}

export interface JsonLinesReadResult<T> {
  /** Every readable, valid record in file order. */
  records: T[];
  /** Complete lines that were not JSON or that `validate` rejected. */
  invalidLines: number;
  /** The file ended in an unterminated line that does not parse (a write cut short). */
  tornTail: boolean;
}

/** A file's text, or `undefined` when it does not exist; other failures are `StorageError`s. */
export async function readTextFile(path: string): Promise<string | undefined> {
  return withStorageErrors(path, 'read', async () => {
    try {
      return await readFile(path, 'utf8');
    } catch (error) {
      if (hasErrorCode(error, 'ENOENT')) return undefined;
      throw error;
    }
  });
}

/**
 * Reads a JSON Lines file, tolerant of crashes: an unterminated last line that does not parse is a
 * write cut short and is skipped (`tornTail`); an unterminated last line that does parse is kept.
 * Complete lines that are not JSON, or that `validate` rejects (returns `undefined` for), are
 * counted in `invalidLines` so that the caller can recover. A missing file reads as empty.
 */
export async function readJsonLines<T>(
  path: string,
  validate: (value: unknown) => T | undefined,
): Promise<JsonLinesReadResult<T>> {
  const text = (await readTextFile(path)) ?? '';
  const result: JsonLinesReadResult<T> = { records: [], invalidLines: 0, tornTail: false };
  const lines = text.split('\n');
  const tail = lines.pop() ?? '';
  for (const line of lines) {
    if (line.trim() === '') continue;
    const parsed = parseLine(line);
    const record = parsed && validate(parsed.value);
    if (record === undefined) result.invalidLines++;
    else result.records.push(record);
  }
  if (tail.trim() !== '') {
    const parsed = parseLine(tail);
    const record = parsed && validate(parsed.value);
    if (record === undefined) result.tornTail = true;
    else result.records.push(record);
  }
  return result;
}

/** Offset just after the last newline before `end` (0 when there is none). */
async function lineStartBefore(handle: FileHandle, end: number): Promise<number> {
  const buffer = Buffer.alloc(CHUNK_BYTES);
  let position = end;
  while (position > 0) {
    const length = Math.min(CHUNK_BYTES, position);
    position -= length;
    const { bytesRead } = await handle.read(buffer, 0, length, position);
    const newline = buffer.subarray(0, bytesRead).lastIndexOf(NEWLINE);
    if (newline !== -1) return position + newline + 1;
  }
  return 0;
}

/** Bytes `[start, end)` of an open file, fewer when the file is shorter (a read never overruns). */
export async function readFileRange(
  handle: FileHandle,
  start: number,
  end: number,
): Promise<Buffer> {
  // Not zero-filled (large ranges are read whole): only the bytes read are returned.
  const buffer = Buffer.allocUnsafe(end - start);
  let offset = 0;
  while (offset < buffer.length) {
    const { bytesRead } = await handle.read(buffer, offset, buffer.length - offset, start + offset);
    if (bytesRead === 0) break;
    offset += bytesRead;
  }
  return buffer.subarray(0, offset);
}

/** The file's last line and where it starts; `terminated` is false for an unterminated tail. */
async function lastLine(
  handle: FileHandle,
  size: number,
): Promise<{ start: number; text: string; terminated: boolean } | undefined> {
  if (size === 0) return undefined;
  const last = Buffer.alloc(1);
  await handle.read(last, 0, 1, size - 1);
  const terminated = last[0] === NEWLINE;
  const end = terminated ? size - 1 : size;
  const start = await lineStartBefore(handle, end);
  return { start, text: (await readFileRange(handle, start, end)).toString('utf8'), terminated };
}

export type LastJsonLine =
  | { kind: 'empty' }
  | { kind: 'record'; value: unknown }
  /** The last complete line is not JSON: read the whole file to recover. */
  | { kind: 'invalid' };

/**
 * Reads only the last record of a JSON Lines file (by seeking from the end), skipping a torn
 * tail, so that appends stay O(1) however long the file grows.
 */
export async function readLastJsonLine(path: string): Promise<LastJsonLine> {
  return withStorageErrors(path, 'read', async () => {
    let handle: FileHandle;
    try {
      handle = await open(path, 'r');
    } catch (error) {
      if (hasErrorCode(error, 'ENOENT')) return { kind: 'empty' };
      throw error;
    }
    try {
      let end = (await handle.stat()).size;
      for (;;) {
        const line = await lastLine(handle, end);
        if (!line) return { kind: 'empty' };
        if (line.text.trim() === '') {
          end = line.start;
          continue;
        }
        const parsed = parseLine(line.text);
        if (parsed) return { kind: 'record', value: parsed.value };
        if (line.terminated) return { kind: 'invalid' };
        // A torn tail: the record before it is the last one.
        end = line.start;
      }
    } finally {
      await handle.close();
    }
  });
}

/**
 * Appends records as JSON lines with one write and an fsync, so that a record is on disk before
 * this resolves. Call it under `withFileLock`: first a torn tail left by a crashed writer is cut
 * off (or terminated, when it parses), so that the new records never glue onto half a line.
 * `records` must already be plain JSON values (see `encodeStorable`).
 */
export async function appendJsonLines(path: string, records: readonly unknown[]): Promise<void> {
  if (records.length === 0) return;
  await withStorageErrors(path, 'append to', async () => {
    const folder = dirname(path);
    await mkdir(folder, { recursive: true });
    const existed = await stat(path).then(
      () => true,
      (error: unknown) => {
        if (hasErrorCode(error, 'ENOENT')) return false;
        throw error;
      },
    );
    const handle = await open(path, 'a+');
    try {
      const size = (await handle.stat()).size;
      let prefix = '';
      const line = await lastLine(handle, size);
      if (line && !line.terminated) {
        if (parseLine(line.text)) prefix = '\n';
        else await handle.truncate(line.start);
      }
      const data = Buffer.from(
        prefix + records.map((record) => `${JSON.stringify(record)}\n`).join(''),
        'utf8',
      );
      const before = (await handle.stat()).size;
      try {
        let written = 0;
        while (written < data.length) {
          const { bytesWritten } = await handle.write(data, written, data.length - written);
          written += bytesWritten;
        }
        await handle.sync();
      } catch (error) {
        // Nothing of a failed append may stay behind: whole lines that made it to disk were never
        // acknowledged, and the caller's retry would write them a second time.
        await handle.truncate(before).catch(() => undefined);
        throw error;
      }
    } finally {
      await handle.close();
    }
    if (!existed) await fsyncDirectory(folder);
  });
}

/** Replaces a JSON Lines file atomically with `records` (used after recovering a damaged file). */
export function serializeJsonLines(records: readonly unknown[]): string {
  return records.map((record) => `${JSON.stringify(record)}\n`).join('');
}

import { open } from 'node:fs/promises';
import { hasErrorCode, withStorageErrors } from '../storage/index.js';
import { type EncodedStoredMessage, validateStoredRecord } from './history-records.js';

const CHUNK_BYTES = 64 * 1024;
const NEWLINE = 0x0a;

/**
 * The records at indexes `from ..< end` of a history file whose last record has index `end - 1`,
 * read backwards from the end of the file: a positional append compares only what other writers
 * stored since its caller's last append, so its cost follows that, not the history's length.
 * Returns `undefined` when the tail is not exactly those records (a damaged line, a torn write in
 * the middle): the caller then reads and recovers the whole file.
 */
export async function readTailRecords(
  path: string,
  from: number,
  end: number,
): Promise<EncodedStoredMessage[] | undefined> {
  const wanted = end - from;
  if (wanted <= 0) return [];
  return withStorageErrors(path, 'read', async () => {
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(path, 'r');
    } catch (error) {
      if (hasErrorCode(error, 'ENOENT')) return undefined;
      throw error;
    }
    try {
      let position = (await handle.stat()).size;
      const chunks: Buffer[] = [];
      let newlines = 0;
      // One newline more than the lines wanted: the one that ends the line before them (a torn
      // last line adds at most one line, which the parse below skips).
      while (position > 0 && newlines <= wanted + 1) {
        const length = Math.min(CHUNK_BYTES, position);
        position -= length;
        const chunk = Buffer.alloc(length);
        await handle.read(chunk, 0, length, position);
        for (const byte of chunk) if (byte === NEWLINE) newlines++;
        chunks.unshift(chunk);
      }
      const lines = Buffer.concat(chunks).toString('utf8').split('\n');
      // Unless the file was read from its start, the first line may be cut: drop it.
      if (position > 0) lines.shift();
      const records: EncodedStoredMessage[] = [];
      for (let index = lines.length - 1; index >= 0 && records.length < wanted; index--) {
        const line = lines[index]!;
        if (line.trim() === '') continue;
        let value: unknown;
        try {
          value = JSON.parse(line);
        } catch {
          // Only the unterminated last line may be torn (a writer that crashed mid-write).
          if (index === lines.length - 1) continue;
          return undefined;
        }
        const record = validateStoredRecord(value);
        if (!record) return undefined;
        records.push(record);
      }
      records.reverse();
      const consecutive =
        records.length === wanted &&
        records.every((record, offset) => record.index === from + offset);
      return consecutive ? records : undefined;
    } finally {
      await handle.close();
    }
  });
}

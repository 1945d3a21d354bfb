import { statSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Inputs of at least this many bytes get a full collection once parsed: see `releaseInputText`. */
export const LARGE_INPUT_BYTES = 8 * 1024 * 1024;

/**
 * Once a large body is parsed, its JSON text (as large as the body) is garbage, but V8 frees a
 * string that size only at a full collection, which may come after the tokenizer's tables and the
 * compaction's work were allocated on top of it: the peak would be text + body + all of that. One
 * full collection right after parsing keeps the peak near the body plus the work (it takes tens of
 * milliseconds for a 50 MB body; smaller inputs skip it).
 */
export function releaseInputText(bytes: number): void {
  if (bytes < LARGE_INPUT_BYTES) return;
  // Called once per process: a new context for `gc` costs about a millisecond.
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/** The size of a file in bytes, 0 when it cannot be read (the read reports that). */
export function fileBytes(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

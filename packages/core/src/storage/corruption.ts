import { constants } from 'node:fs';
import { copyFile, open, rm } from 'node:fs/promises';
import { CorruptDataError } from '../errors/index.js';
import { hasErrorCode, withStorageErrors } from './storage-error.js';

/**
 * What a file store does when it finds a damaged file.
 * - `recover`: keep every readable record, copy the damaged file aside as
 *   `<name>.corrupt-<timestamp>`, rewrite the file with what was recovered, report the event to
 *   `onCorruption` (or as a process warning when there is no callback) and carry on.
 * - `strict`: the same recovery and copy, then throw `CorruptDataError` so that the caller has to
 *   notice; the next call sees the recovered data.
 *
 * In both modes nothing is wiped silently: the damaged bytes stay on disk beside the file.
 * A torn last line of a JSON Lines file (a write cut short by a crash, never acknowledged) is not
 * corruption: it is dropped quietly.
 */
export type CorruptionMode = 'recover' | 'strict';

export interface CorruptionEvent {
  /** The damaged file (now rewritten with the recovered records). */
  path: string;
  /** Where the damaged bytes were kept. */
  quarantinedPath: string;
  /** Records that could still be read. */
  recoveredRecords: number;
  /** Records or lines that could not be read. */
  droppedRecords: number;
  /** What was wrong, for the log. */
  reason: string;
}

export interface CorruptionOptions {
  /**
   * How damaged files are handled (see `CorruptionMode`).
   * @default 'recover'
   */
  corruption?: CorruptionMode;
  /**
   * Told about every damaged file that was recovered.
   * @default emits a process warning with code `CTXMEM_CORRUPT_DATA`
   */
  onCorruption?: (event: CorruptionEvent) => void;
}

function timestamp(): string {
  return new Date().toISOString().replace(/[-:]/g, '');
}

/**
 * Copies a damaged file to `<path>.corrupt-<timestamp>` (never overwriting an earlier copy) and
 * returns the copy's path. The original stays in place until the caller rewrites it atomically, so
 * readers never see the file missing.
 */
export async function quarantineFile(path: string): Promise<string> {
  return withStorageErrors(path, 'keep a copy of the damaged file', async () => {
    const base = `${path}.corrupt-${timestamp()}`;
    for (let attempt = 0; ; attempt++) {
      const target = attempt === 0 ? base : `${base}-${attempt}`;
      try {
        await copyFile(path, target, constants.COPYFILE_EXCL);
      } catch (error) {
        if (hasErrorCode(error, 'EEXIST')) continue;
        throw error;
      }
      const handle = await open(target, 'r');
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
      return target;
    }
  });
}

/** Reports a recovered file according to `options`: a callback or warning, or `CorruptDataError`. */
export function reportCorruption(event: CorruptionEvent, options: CorruptionOptions): void {
  const message =
    `ctxmem found damaged data in ${event.path} (${event.reason}). ${event.recoveredRecords} ` +
    `record(s) were recovered and ${event.droppedRecords} could not be read; the damaged file ` +
    `was kept as ${event.quarantinedPath}.`;
  if (options.corruption === 'strict') {
    throw new CorruptDataError({
      message,
      path: event.path,
      recoveredRecords: event.recoveredRecords,
    });
  }
  if (options.onCorruption) options.onCorruption(event);
  else process.emitWarning(message, { code: 'CTXMEM_CORRUPT_DATA' });
}

/**
 * Sets a damaged one-record file aside: keeps a copy (see `quarantineFile`), removes the file so
 * the store starts that record again, and reports the one dropped record with `reason`.
 */
export async function setAsideDamagedFile(
  path: string,
  reason: string,
  options: CorruptionOptions,
): Promise<void> {
  const quarantinedPath = await quarantineFile(path);
  await withStorageErrors(path, 'remove', () => rm(path, { force: true }));
  reportCorruption(
    { path, quarantinedPath, recoveredRecords: 0, droppedRecords: 1, reason },
    options,
  );
}

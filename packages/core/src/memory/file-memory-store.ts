import { dirname, join, resolve } from 'node:path';
import type { MemoryStore } from '../contracts/index.js';
import {
  type CorruptionOptions,
  type FileLockOptions,
  normalizeScope,
  scopeFolder,
} from '../storage/index.js';
import { requireOptions } from '../validation/index.js';
import { createCardIndexStore } from './card-index-store.js';
import { createCardLogFiles } from './card-log-files.js';
import { checkLogPosition, readLogChangesSince } from './card-log-position.js';
import type { MemoryStoreOptions } from './card-records.js';
import { registerMemoryLog } from './memory-change-feed.js';
import { registerMemorySidecar } from './memory-sidecar.js';

export interface FileMemoryStoreOptions extends MemoryStoreOptions, CorruptionOptions {
  /**
   * Folder of the store. Each scope's cards are one log file,
   * `<root>/scopes/<user>/<agent>/<session>/cards.jsonl`. Other file stores may share the root.
   * @default `<cwd>/.ctxmem`
   */
  root?: string;
  /**
   * Cross-process lock settings (stale-lock takeover time, wait timeout).
   * @default { staleMs: 10000, timeoutMs: 30000 }
   */
  lock?: FileLockOptions;
}

/** The log file of a scope, inside its scope folder. */
export const MEMORY_CARDS_FILE = 'cards.jsonl';

/**
 * Memory cards in files: one append-only log per scope (`cards.jsonl`, see `card-log.ts`).
 *
 * - **Writes** take a cross-process file lock, read what other processes appended since this one
 *   last looked, merge the drafts through the scope's card index (de-duplication and
 *   supersession are look-ups, see `createCardIndex`), and append the change as one JSON line
 *   with a single write and an fsync: an `add` costs its own size, not the scope's. Nothing is
 *   acknowledged before it is on disk; a failed append is cut off again.
 * - **Compaction**: once more than half of the log's card entries are replaced or removed ones
 *   (and at least 256), the log is rewritten with the current cards only, atomically (temp file,
 *   fsync, rename) under the lock.
 * - **Reads** take no lock. Each store keeps the parsed cards of a log in memory; a read checks
 *   the file's size and identity (inode and header generation) and parses only the lines other
 *   processes appended since, or the whole file again after it was rewritten. Lines are only
 *   read once complete, and one `add` is one line, so a reader never sees half of an `add`.
 * - **Damage**: an unfinished last line is a write cut short by a crash, never acknowledged: it is
 *   ignored, and cut off by the next writer. A complete line that is not a valid record is
 *   corruption, handled by `corruption`: the file is copied aside, rewritten with every entry
 *   that could be read, and reported (`recover`), or reported with `CorruptDataError` (`strict`).
 * - **Earlier versions** kept a `cards.json` document per scope; it is migrated into the log,
 *   under the lock, on the first access to the scope, and then deleted.
 */
export function createFileMemoryStore(given: FileMemoryStoreOptions = {}): MemoryStore {
  const {
    root = join(process.cwd(), '.ctxmem'),
    lock = {},
    corruption = 'recover',
    onCorruption,
    ...options
  } = requireOptions(given, 'createFileMemoryStore');
  const base = resolve(root);
  const logPath = (scope: Parameters<typeof scopeFolder>[1]) =>
    join(scopeFolder(base, scope), MEMORY_CARDS_FILE);
  const { store, locate } = createCardIndexStore(options, {
    locate: logPath,
    ...createCardLogFiles({ lock, corruption, onCorruption }),
  });
  registerMemorySidecar(store, (scope, name) => join(dirname(locate(scope)), name));
  registerMemoryLog(store, {
    check: (scope, position) => checkLogPosition(locate(scope), position),
    changesSince: (scope, since) =>
      readLogChangesSince(locate(scope), normalizeScope(scope), since),
  });
  return store;
}

import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { CompleteHistoryStore, Scope } from '../contracts/index.js';
import {
  appendJsonLines,
  assertRequiredScope,
  type CorruptionOptions,
  type FileLockOptions,
  isoNow,
  quarantineFile,
  readJsonLines,
  readLastJsonLine,
  readTextFile,
  removeLeftoverTempFiles,
  reportCorruption,
  scopeFolder,
  serializeJsonLines,
  setAsideDamagedFile,
  systemClock,
  validateRequiredScope,
  withFileLock,
  withStorageErrors,
  writeFileAtomic,
} from '../storage/index.js';
import { requireOptions } from '../validation/index.js';
import {
  assertExpectedVersion,
  decodeState,
  EMPTY_HISTORY_END,
  type EncodedStoredMessage,
  type EncodedWorkingState,
  encodeMessages,
  encodeState,
  endAfter,
  generateMessageId,
  type HistoryEnd,
  nextStateVersion,
  normalizeRange,
  normalizeTurns,
  recordsInRange,
  recordsOfTurns,
  validateEncodedState,
  validateStoredRecord,
} from './history-records.js';
import type { HistoryStoreOptions } from './in-memory-history-store.js';
import { assertAppendPosition, planAppend } from './positional-append.js';
import { readTailRecords } from './read-tail-records.js';

export interface FileHistoryStoreOptions extends HistoryStoreOptions, CorruptionOptions {
  /**
   * Folder of the store. Each scope gets `<root>/scopes/<user>/<agent>/<session>/` holding
   * `history.jsonl` (the original history, append-only) and `state.json` (the working state).
   * Other file stores may share the root: their file names differ.
   * @default `<cwd>/.ctxmem`
   */
  root?: string;
  /**
   * Cross-process lock settings (stale-lock takeover time, wait timeout).
   * @default { staleMs: 10000, timeoutMs: 30000 }
   */
  lock?: FileLockOptions;
}

/**
 * A history store in files, safe for several processes at once. Appends run under a file lock and
 * are fsynced before they resolve; the working state is replaced atomically under its own lock
 * (compare-and-set on the version). Reads take no lock. A crash can at worst leave a torn last
 * line, which is dropped (it was never acknowledged); damaged lines are handled per `corruption`.
 */
export function createFileHistoryStore(
  options: FileHistoryStoreOptions = {},
): CompleteHistoryStore {
  const {
    root = join(process.cwd(), '.ctxmem'),
    requiredScope = [],
    clock = systemClock,
    generateId = generateMessageId,
    lock = {},
    corruption = 'recover',
    onCorruption,
  } = requireOptions(options, 'createFileHistoryStore');
  const required = validateRequiredScope(requiredScope);
  const base = resolve(root);
  const corruptionOptions: CorruptionOptions = { corruption, onCorruption };
  const tidied = new Set<string>();

  const pathsOf = (scope: Scope) => {
    assertRequiredScope(scope, required);
    const folder = scopeFolder(base, scope);
    return { history: join(folder, 'history.jsonl'), state: join(folder, 'state.json') };
  };

  /** Reads every record; damaged lines are recovered under the lock and reported. */
  async function readAll(path: string): Promise<EncodedStoredMessage[]> {
    const result = await readJsonLines(path, validateStoredRecord);
    if (result.invalidLines === 0) return result.records;
    return withFileLock(path, () => recoverHistory(path), lock);
  }

  /** Under the history lock: keeps the readable records, sets the damaged file aside, reports. */
  async function recoverHistory(path: string): Promise<EncodedStoredMessage[]> {
    const result = await readJsonLines(path, validateStoredRecord);
    if (result.invalidLines === 0) return result.records;
    const quarantinedPath = await quarantineFile(path);
    await writeFileAtomic(path, serializeJsonLines(result.records));
    reportCorruption(
      {
        path,
        quarantinedPath,
        recoveredRecords: result.records.length,
        droppedRecords: result.invalidLines,
        reason: `${result.invalidLines} unreadable line(s)`,
      },
      corruptionOptions,
    );
    return result.records;
  }

  /** Every record, read while holding the history lock (damaged lines are recovered). */
  async function readUnderLock(path: string): Promise<EncodedStoredMessage[]> {
    const result = await readJsonLines(path, validateStoredRecord);
    return result.invalidLines === 0 ? result.records : recoverHistory(path);
  }

  /** Where the history ends, from its last line only (a full read only when that line is damaged). */
  async function historyEnd(path: string, underLock: boolean): Promise<HistoryEnd> {
    const last = await readLastJsonLine(path);
    if (last.kind === 'empty') return EMPTY_HISTORY_END;
    const record = last.kind === 'record' ? validateStoredRecord(last.value) : undefined;
    if (record) return endAfter(record);
    const records = underLock
      ? await recoverHistory(path)
      : await withFileLock(path, () => recoverHistory(path), lock);
    const final = records.at(-1);
    return final ? endAfter(final) : EMPTY_HISTORY_END;
  }

  async function readState(
    path: string,
  ): Promise<
    { kind: 'missing' } | { kind: 'state'; state: EncodedWorkingState } | { kind: 'damaged' }
  > {
    const text = await readTextFile(path);
    if (text === undefined) return { kind: 'missing' };
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return { kind: 'damaged' };
    }
    const state = validateEncodedState(value);
    return state ? { kind: 'state', state } : { kind: 'damaged' };
  }

  /** Under the state lock: the current state; a damaged one is set aside (the state is a cache of work that can be redone). */
  async function currentState(path: string): Promise<EncodedWorkingState | undefined> {
    const read = await readState(path);
    if (read.kind === 'state') return read.state;
    if (read.kind === 'missing') return undefined;
    await setAsideDamagedFile(
      path,
      'the working state is unreadable; it starts again from version 0',
      corruptionOptions,
    );
    return undefined;
  }

  return {
    async append(scope, messages, { at } = {}) {
      const { history } = pathsOf(scope);
      const encoded = encodeMessages(messages);
      if (at !== undefined) assertAppendPosition(at);
      if (encoded.length === 0 && at === undefined) return [];
      return withFileLock(
        history,
        async () => {
          const end = await historyEnd(history, true);
          let stored: EncodedStoredMessage[] = [];
          // Under the lock, so no other process appends between the comparison and the write.
          // Only a caller that is behind (another writer appended since) reads here, and only
          // the tail it is behind by; the whole file only when that tail is damaged.
          if (at !== undefined && at < end.nextIndex && encoded.length > 0) {
            stored =
              (await readTailRecords(history, at, end.nextIndex)) ?? (await readUnderLock(history));
          }
          const { records, appended } = planAppend({
            at,
            end,
            stored,
            encoded,
            createdAt: () => isoNow(clock),
            generateId,
          });
          if (records.length > 0) await appendJsonLines(history, records);
          return appended;
        },
        lock,
      );
    },

    async read(scope, range) {
      const { history } = pathsOf(scope);
      const wanted = normalizeRange(range);
      return recordsInRange(await readAll(history), wanted);
    },

    async readTurns(scope, turns) {
      const { history } = pathsOf(scope);
      const wanted = normalizeTurns(turns);
      return recordsOfTurns(await readAll(history), wanted);
    },

    async count(scope) {
      const { history } = pathsOf(scope);
      return (await historyEnd(history, false)).nextIndex;
    },

    async getState(scope) {
      const { state } = pathsOf(scope);
      const read = await readState(state);
      if (read.kind === 'missing') return undefined;
      if (read.kind === 'state') return decodeState(read.state);
      const recovered = await withFileLock(state, () => currentState(state), lock);
      return recovered ? decodeState(recovered) : undefined;
    },

    async setState(scope, state, expectedVersion) {
      const { state: path } = pathsOf(scope);
      assertExpectedVersion(expectedVersion);
      const encoded = encodeState(state);
      return withFileLock(
        path,
        async () => {
          const current = await currentState(path);
          const version = nextStateVersion(expectedVersion, current?.version ?? 0);
          const record: EncodedWorkingState = { version, state: encoded };
          if (!tidied.has(path)) {
            // Temporary files of writers killed mid-write; safe to delete while holding the lock.
            tidied.add(path);
            await removeLeftoverTempFiles(path);
          }
          await writeFileAtomic(path, `${JSON.stringify(record)}\n`);
          return version;
        },
        lock,
      );
    },

    async clear(scope) {
      const paths = pathsOf(scope);
      await withFileLock(
        paths.history,
        () =>
          withFileLock(
            paths.state,
            async () => {
              for (const path of [paths.history, paths.state]) {
                await withStorageErrors(path, 'remove', () => rm(path, { force: true }));
              }
            },
            lock,
          ),
        lock,
      );
    },
  };
}

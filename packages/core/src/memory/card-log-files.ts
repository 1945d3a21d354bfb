/**
 * The log files of a file memory store (`cards.jsonl`, one per scope, see `card-log.ts`): reading
 * them without a lock (only the lines appended since the last read are parsed), and changing them
 * under the cross-process lock (append one line with an fsync, compact atomically when most of the
 * log is garbage, recover damaged files, migrate a `cards.json` of an earlier version).
 */
import { open, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Scope } from '../contracts/index.js';
import {
  type CorruptionOptions,
  type FileLockOptions,
  fsyncDirectory,
  hasErrorCode,
  quarantineFile,
  readFileRange,
  removeLeftoverTempFiles,
  reportCorruption,
  withFileLock,
  withStorageErrors,
  writeFileAtomic,
} from '../storage/index.js';
import { type CardIndex, createCardIndex } from './card-index.js';
import type { CardIndexChange, CardIndexes } from './card-index-store.js';
import {
  type CardLogRecord,
  lineEntries,
  logHeader,
  logLine,
  newLogGeneration,
  parseLogLines,
  serializeCardLog,
} from './card-log.js';
import {
  applyLines,
  emptyState,
  type LoadedLog,
  type LogState,
  parseLog,
} from './card-log-state.js';
import { LEGACY_CARDS_FILE, parseLegacyCards } from './legacy-card-file.js';

/** Scopes whose cards a store keeps in memory. */
const CACHED_SCOPES = 1000;
/**
 * The log is rewritten with only the current cards when more than this share of the card entries
 * it holds are replaced or removed ones, so it stays within twice the size of its cards.
 */
const COMPACT_GARBAGE_SHARE = 0.5;
/** ...and only past this many garbage entries, so small logs are not rewritten on every change. */
const COMPACT_MIN_GARBAGE = 256;

export interface CardLogFilesOptions extends CorruptionOptions {
  lock: FileLockOptions;
}

/** Card indexes kept in log files, keyed by the path of each scope's log. */
export function createCardLogFiles({
  lock,
  corruption,
  onCorruption,
}: CardLogFilesOptions): Omit<CardIndexes<string>, 'locate'> {
  const cache = new Map<string, LogState>();

  function remember(path: string, state: LogState): void {
    cache.delete(path);
    if (cache.size >= CACHED_SCOPES) cache.delete(cache.keys().next().value!);
    cache.set(path, state);
  }

  // One reader or writer of a log's state at a time within this process, so the lines appended
  // by others are applied once, and never while this process appends its own.
  const queues = new Map<string, Promise<unknown>>();
  function serially<Result>(path: string, action: () => Promise<Result>): Promise<Result> {
    const previous = queues.get(path) ?? Promise.resolve();
    const next = previous.then(action, action);
    const settled = next.then(
      () => undefined,
      () => undefined,
    );
    queues.set(path, settled);
    void settled.then(() => {
      if (queues.get(path) === settled) queues.delete(path);
    });
    return next;
  }

  async function loadLegacy(path: string, scope: Scope): Promise<LoadedLog> {
    const legacyPath = join(dirname(path), LEGACY_CARDS_FILE);
    let text: string;
    try {
      const handle = await open(legacyPath, 'r');
      try {
        text = await handle.readFile('utf8');
      } finally {
        await handle.close();
      }
    } catch (error) {
      if (hasErrorCode(error, 'ENOENT', 'ENOTDIR'))
        return { state: emptyState(), damaged: 0, size: 0 };
      throw error;
    }
    const { cards, damaged, reason } = parseLegacyCards(text, scope);
    const state = { ...emptyState(), index: createCardIndex(cards) };
    return { state, damaged, ...(reason === undefined ? {} : { reason }), size: 0, legacy: true };
  }

  /** The scope's log as this process knows it, brought up to date with the file. */
  async function load(path: string, scope: Scope): Promise<LoadedLog> {
    return withStorageErrors(path, 'read', async () => {
      let handle: Awaited<ReturnType<typeof open>>;
      try {
        handle = await open(path, 'r');
      } catch (error) {
        if (!hasErrorCode(error, 'ENOENT')) throw error;
        const cached = cache.get(path);
        if (cached && !cached.exists) return { state: cached, damaged: 0, size: 0 };
        cache.delete(path);
        const loaded = await loadLegacy(path, scope);
        if (!loaded.legacy) remember(path, loaded.state);
        return loaded;
      }
      try {
        const info = await handle.stat();
        const cached = cache.get(path);
        if (cached?.exists && cached.ino === info.ino && info.size >= cached.offset) {
          const header = await readFileRange(handle, 0, Buffer.byteLength(cached.header));
          if (header.toString('utf8') === cached.header) {
            if (info.size === cached.offset) return { state: cached, damaged: 0, size: info.size };
            const tail = parseLogLines(
              await readFileRange(handle, cached.offset, info.size),
              scope,
            );
            if (tail.damaged === 0) {
              applyLines(cached.index, tail.lines);
              cached.offset += tail.consumed;
              cached.entries += tail.lines.reduce((sum, line) => sum + lineEntries(line), 0);
              return { state: cached, damaged: 0, size: info.size };
            }
          }
        }
        cache.delete(path);
        const loaded = parseLog(await readFileRange(handle, 0, info.size), info.ino, scope);
        if (loaded.damaged === 0) remember(path, loaded.state);
        return loaded;
      } finally {
        await handle.close();
      }
    });
  }

  const tidied = new Set<string>();

  /** Under the lock: replaces the log with `cards` under a new generation. */
  async function rewrite(path: string, state: LogState): Promise<void> {
    const cards = state.index.cards();
    const generation = newLogGeneration();
    const text = serializeCardLog(generation, cards);
    cache.delete(path);
    await writeFileAtomic(path, text);
    const info = await withStorageErrors(path, 'read', () => stat(path));
    state.exists = true;
    state.ino = info.ino;
    state.header = logHeader(generation);
    state.offset = Buffer.byteLength(text);
    state.entries = cards.length;
    remember(path, state);
  }

  /** Under the lock: appends one committed change, or writes the log when there is none yet. */
  async function append(path: string, state: LogState, record: CardLogRecord): Promise<void> {
    if (!state.exists) {
      await rewrite(path, state);
      return;
    }
    const line = Buffer.from(logLine(record), 'utf8');
    await withStorageErrors(path, 'append to', async () => {
      const handle = await open(path, 'r+');
      try {
        let written = 0;
        try {
          while (written < line.length) {
            const { bytesWritten } = await handle.write(
              line,
              written,
              line.length - written,
              state.offset + written,
            );
            written += bytesWritten;
          }
          await handle.sync();
        } catch (error) {
          // Nothing of a failed append may stay behind: it was never acknowledged.
          await handle.truncate(state.offset).catch(() => undefined);
          throw error;
        }
      } finally {
        await handle.close();
      }
    });
    state.offset += line.length;
    state.entries += 'put' in record ? record.put.length : record.remove.length;
    const garbage = state.entries - state.index.size;
    if (garbage >= COMPACT_MIN_GARBAGE && garbage > COMPACT_GARBAGE_SHARE * state.entries) {
      // The change is already durable: a failed compaction leaves the log as it was (the rename
      // is atomic), to be compacted by a later write.
      await rewrite(path, state).catch(() => cache.delete(path));
    }
  }

  /**
   * Under the lock: the log brought up to date, after recovering a damaged file (kept aside and
   * reported), migrating a `cards.json` of an earlier version, and cutting off an unfinished last
   * line (a crashed write: nobody else can be writing now).
   */
  async function loadForUpdate(path: string, scope: Scope): Promise<LogState> {
    if (!tidied.has(path)) {
      // Temporary files of rewrites killed mid-write; safe to delete while holding the lock.
      tidied.add(path);
      await removeLeftoverTempFiles(path);
    }
    const loaded = await load(path, scope);
    const { state } = loaded;
    if (loaded.legacy || loaded.damaged > 0) {
      const legacyPath = join(dirname(path), LEGACY_CARDS_FILE);
      const damagedPath = loaded.legacy ? legacyPath : path;
      const quarantinedPath = loaded.damaged > 0 ? await quarantineFile(damagedPath) : undefined;
      await rewrite(path, state);
      if (loaded.legacy) {
        await withStorageErrors(legacyPath, 'remove', () => rm(legacyPath, { force: true }));
        await fsyncDirectory(dirname(path));
      }
      if (quarantinedPath !== undefined) {
        // Last: in strict mode this throws, and the next call sees the recovered log.
        reportCorruption(
          {
            path: damagedPath,
            quarantinedPath,
            recoveredRecords: state.index.size,
            droppedRecords: loaded.damaged,
            reason: loaded.reason ?? 'damaged cards',
          },
          { corruption, onCorruption },
        );
      }
      return state;
    }
    if (loaded.size > state.offset) {
      await withStorageErrors(path, 'truncate', async () => {
        const handle = await open(path, 'r+');
        try {
          await handle.truncate(state.offset);
          await handle.sync();
        } finally {
          await handle.close();
        }
      });
    }
    return state;
  }

  /** Without the lock when the log is healthy; with it when it must be recovered or migrated. */
  async function read(path: string, scope: Scope): Promise<CardIndex> {
    const loaded = await serially(path, () => load(path, scope));
    if (loaded.damaged === 0 && !loaded.legacy) return loaded.state.index;
    return withFileLock(
      path,
      () => serially(path, async () => (await loadForUpdate(path, scope)).index),
      lock,
    );
  }

  /** Under the lock: applies `change` and appends the record it returns, if any. */
  function update<Result>(
    path: string,
    scope: Scope,
    change: CardIndexChange<Result>,
  ): Promise<Result> {
    return withFileLock(
      path,
      () =>
        serially(path, async () => {
          const state = await loadForUpdate(path, scope);
          // All or nothing: a change that throws leaves the index as it was.
          const { result, record } = change(state.index);
          if (record) {
            try {
              await append(path, state, record);
            } catch (error) {
              // The index holds a change the file does not: read the file again next time.
              cache.delete(path);
              throw error;
            }
          }
          return result;
        }),
      lock,
    );
  }

  return {
    read,
    update,
    position(path) {
      const state = cache.get(path);
      return state?.exists && state.header !== ''
        ? { header: state.header, offset: state.offset }
        : undefined;
    },
  };
}

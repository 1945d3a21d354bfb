import { open, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { MemoryCard, MemoryStore, Scope } from '../contracts/index.js';
import {
  assertRequiredScope,
  assertSafeId,
  type CorruptionOptions,
  type FileLockOptions,
  fsyncDirectory,
  hasErrorCode,
  isoNow,
  normalizeScope,
  quarantineFile,
  readFileRange,
  removeLeftoverTempFiles,
  reportCorruption,
  scopeFolder,
  systemClock,
  validateRequiredScope,
  withFileLock,
  withStorageErrors,
  writeFileAtomic,
} from '../storage/index.js';
import { type CardIndex, createCardIndex } from './card-index.js';
import {
  type CardLogRecord,
  lineEntries,
  logHeader,
  logLine,
  newLogGeneration,
  parseLogHeader,
  parseLogLines,
  type ReadLogLines,
  serializeCardLog,
} from './card-log.js';
import {
  assertCardIds,
  copyCard,
  generateCardId,
  type MemoryStoreOptions,
  safeIdGenerator,
  visibleCards,
} from './card-records.js';
import { cardNotFound } from './in-memory-memory-store.js';
import { LEGACY_CARDS_FILE, parseLegacyCards } from './legacy-card-file.js';
import { changesOfIndex, registerMemoryChangeFeed } from './memory-change-feed.js';
import { registerMemorySidecar } from './memory-sidecar.js';
import { validateDrafts } from './validate-drafts.js';

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
/** Scopes whose cards a store keeps in memory. */
const CACHED_SCOPES = 1000;
/**
 * The log is rewritten with only the current cards when more than this share of the card entries
 * it holds are replaced or removed ones, so it stays within twice the size of its cards.
 */
const COMPACT_GARBAGE_SHARE = 0.5;
/** ...and only past this many garbage entries, so small logs are not rewritten on every change. */
const COMPACT_MIN_GARBAGE = 256;

/** What this process knows of one scope's log: its cards, and how far it has read the file. */
interface LogState {
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

interface LoadedLog {
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
function applyLines(index: CardIndex, lines: ReadLogLines['lines']): void {
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
function parseLog(bytes: Buffer, ino: number, scope: Scope): LoadedLog {
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

function emptyState(): LogState {
  return { index: createCardIndex(), exists: false, ino: -1, header: '', offset: 0, entries: 0 };
}

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
export function createFileMemoryStore({
  root = join(process.cwd(), '.ctxmem'),
  requiredScope = [],
  clock = systemClock,
  generateId = generateCardId,
  lock = {},
  corruption = 'recover',
  onCorruption,
}: FileMemoryStoreOptions = {}): MemoryStore {
  const required = validateRequiredScope(requiredScope);
  const nextId = safeIdGenerator(generateId);
  const base = resolve(root);

  const resolveScope = (scope: Scope) => {
    assertRequiredScope(scope, required);
    const normalized = normalizeScope(scope);
    return { scope: normalized, path: join(scopeFolder(base, normalized), MEMORY_CARDS_FILE) };
  };

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
    change: (index: CardIndex) => { result: Result; record?: CardLogRecord },
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

  const store: MemoryStore = {
    async add(scope, drafts) {
      const resolved = resolveScope(scope);
      if (validateDrafts(drafts).length === 0) return [];
      const merged = await update(resolved.path, resolved.scope, (index) => {
        const { results, outcomes, changed } = index.merge(drafts, {
          scope: resolved.scope,
          now: isoNow(clock),
          generateId: nextId,
        });
        if (!changed) return { result: results };
        // Every card the merge changed, once, in the order of its last change.
        const ids = new Set<string>();
        for (const outcome of outcomes) {
          if (outcome.kind === 'duplicate') continue;
          if (outcome.kind === 'added') for (const id of outcome.superseded) ids.add(id);
          ids.delete(outcome.cardId);
          ids.add(outcome.cardId);
        }
        const put = [...ids].flatMap((id) => {
          const card = index.get(id);
          return card ? [card] : [];
        });
        return { result: results, record: { put } };
      });
      return merged.map(copyCard);
    },

    async list(scope, options) {
      const resolved = resolveScope(scope);
      const index = await read(resolved.path, resolved.scope);
      return visibleCards(index.cards(), options).map(copyCard);
    },

    async get(scope, id) {
      const resolved = resolveScope(scope);
      assertSafeId(id, 'card id');
      const card = (await read(resolved.path, resolved.scope)).get(id);
      if (!card) throw cardNotFound(id);
      return copyCard(card);
    },

    async remove(scope, ids) {
      const { scope: normalized, path } = resolveScope(scope);
      assertCardIds(ids);
      if (ids.length === 0) return;
      await update(path, normalized, (index) => {
        const present = [...new Set(ids)].filter((id) => index.get(id) !== undefined);
        if (present.length === 0) return { result: undefined };
        index.remove(present);
        return { result: undefined, record: { remove: present } };
      });
    },
  };
  registerMemoryChangeFeed(store, async (scope, since) => {
    const resolved = resolveScope(scope);
    return changesOfIndex(await read(resolved.path, resolved.scope), since);
  });
  registerMemorySidecar(store, (scope, name) => join(dirname(resolveScope(scope).path), name));
  return store;
}

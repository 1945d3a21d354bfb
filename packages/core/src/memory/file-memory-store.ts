import { open, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { MemoryCard, MemoryStore, Scope } from '../contracts/index.js';
import {
  assertRequiredScope,
  assertSafeId,
  type CorruptionOptions,
  type FileLockOptions,
  hasErrorCode,
  isoNow,
  normalizeScope,
  quarantineFile,
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
  assertCardIds,
  copyCard,
  generateCardId,
  type MemoryStoreOptions,
  safeIdGenerator,
  validateStoredCard,
  visibleCards,
} from './card-records.js';
import { cardNotFound } from './in-memory-memory-store.js';
import { changesOfIndex, registerMemoryChangeFeed } from './memory-change-feed.js';
import { validateDrafts } from './validate-drafts.js';

export interface FileMemoryStoreOptions extends MemoryStoreOptions, CorruptionOptions {
  /**
   * Folder of the store. Each scope's cards are one file,
   * `<root>/scopes/<user>/<agent>/<session>/cards.json`. Other file stores may share the root.
   * @default `<cwd>/.ctxmem`
   */
  root?: string;
  /**
   * Cross-process lock settings (stale-lock takeover time, wait timeout).
   * @default { staleMs: 10000, timeoutMs: 30000 }
   */
  lock?: FileLockOptions;
}

const FORMAT = 'ctxmem-memory-cards';
const VERSION = 1;
/** Scopes whose parsed cards a store keeps in memory. */
const CACHED_SCOPES = 1000;

/**
 * One card per line inside a valid JSON document: `JSON.parse` reads it whole, and if the file is
 * ever damaged, every intact line can still be read on its own.
 */
export function serializeCards(cards: readonly MemoryCard[]): string {
  const header = `{"format":"${FORMAT}","version":${VERSION},"cards":[`;
  if (cards.length === 0) return `${header}]}\n`;
  return `${header}\n${cards.map(serializedCard).join(',\n')}\n]}\n`;
}

// The line of each card object, kept while the object lives: a store's cards are never mutated
// (a change makes a new object), so each rewrite of a large file stringifies only the changed cards.
const serializedLines = new WeakMap<MemoryCard, string>();

function serializedCard(card: MemoryCard): string {
  let line = serializedLines.get(card);
  if (line === undefined) {
    line = JSON.stringify(card);
    serializedLines.set(card, line);
  }
  return line;
}

interface LoadedCards {
  cards: MemoryCard[];
  /** Cards or lines that could not be read; 0 for a healthy file. */
  damaged: number;
  reason?: string;
}

/** Parses a cards file, salvaging intact lines when the document as a whole is not JSON. */
export function parseCards(text: string, scope: Scope): LoadedCards {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    document = undefined;
  }
  const body = document as { format?: unknown; cards?: unknown } | undefined;
  if (body && typeof body === 'object' && body.format === FORMAT && Array.isArray(body.cards)) {
    const cards: MemoryCard[] = [];
    for (const value of body.cards) {
      const card = validateStoredCard(value, scope);
      if (card) cards.push(card);
    }
    const damaged = body.cards.length - cards.length;
    return damaged === 0
      ? { cards, damaged }
      : { cards, damaged, reason: `${damaged} card(s) are invalid or belong to another scope` };
  }
  const cards: MemoryCard[] = [];
  let damaged = 0;
  for (const rawLine of text.split('\n')) {
    const line = rawLine.trim().replace(/,$/u, '');
    if (line === '' || line.startsWith(`{"format":`) || line === ']}') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      damaged++;
      continue;
    }
    const card = validateStoredCard(value, scope);
    if (card) cards.push(card);
    else damaged++;
  }
  return { cards, damaged: Math.max(damaged, 1), reason: 'the file is not valid JSON' };
}

/**
 * Memory cards in files: one `cards.json` per scope, rewritten atomically (temp file, fsync,
 * rename) under a cross-process lock on every change.
 *
 * The parsed cards of a file are kept with their card index (see `createCardIndex`) as long as
 * the file is unchanged, so de-duplication and supersession are look-ups, not a pass over every
 * card, and a file is parsed and indexed once, not on every add.
 *
 * Why a JSON snapshot and not a JSON Lines log: supersession updates existing cards, so a log
 * would need update records and compaction to stay readable; atomic rename means a crash leaves
 * the old or the new file, never a torn one; and the file stays easy to read and edit by hand
 * (like the `memory.json` it replaces). The cost is one rewrite per `add` call, linear in the
 * scope's size (about 15 MB at 100,000 cards), so bulk imports should add in batches. Reads take
 * no lock.
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
    return { scope: normalized, path: join(scopeFolder(base, normalized), 'cards.json') };
  };

  // Parsed cards per file, keyed by the file's identity: every write is an atomic rename (a new
  // inode), so an unchanged signature means unchanged content and `list` skips the parse.
  const cache = new Map<string, { signature: string; index: CardIndex }>();

  const signatureOf = (info: { ino: number; size: number; mtimeMs: number; ctimeMs: number }) =>
    `${info.ino}:${info.size}:${info.mtimeMs}:${info.ctimeMs}`;

  function remember(path: string, signature: string, index: CardIndex): void {
    cache.delete(path);
    if (cache.size >= CACHED_SCOPES) cache.delete(cache.keys().next().value!);
    cache.set(path, { signature, index });
  }

  interface LoadedIndex {
    index: CardIndex;
    damaged: number;
    reason?: string;
  }

  async function load(path: string, scope: Scope): Promise<LoadedIndex> {
    return withStorageErrors(path, 'read', async () => {
      let handle: Awaited<ReturnType<typeof open>>;
      try {
        handle = await open(path, 'r');
      } catch (error) {
        if (!hasErrorCode(error, 'ENOENT')) throw error;
        cache.delete(path);
        return { index: createCardIndex(), damaged: 0 };
      }
      try {
        const signature = signatureOf(await handle.stat());
        const cached = cache.get(path);
        if (cached?.signature === signature) return { index: cached.index, damaged: 0 };
        const { cards, damaged, reason } = parseCards(await handle.readFile('utf8'), scope);
        const index = createCardIndex(cards);
        if (damaged === 0) remember(path, signature, index);
        return reason === undefined ? { index, damaged } : { index, damaged, reason };
      } finally {
        await handle.close();
      }
    });
  }

  const tidied = new Set<string>();

  /** Under the lock: writes the cards and keeps the index as the cached parse of the new file. */
  async function save(path: string, index: CardIndex): Promise<void> {
    if (!tidied.has(path)) {
      // Temporary files of writers killed mid-write; safe to delete while holding the lock.
      tidied.add(path);
      await removeLeftoverTempFiles(path);
    }
    await writeFileAtomic(path, serializeCards(index.cards()));
    const info = await stat(path).catch(() => undefined);
    if (info) remember(path, signatureOf(info), index);
  }

  /**
   * Under the lock: applies `change` to the file's index and writes the file when it changed. The
   * cached index is detached first, so readers meanwhile parse the file as it still is, and a
   * failed write leaves no cached state the file does not have.
   */
  async function update<Result>(
    path: string,
    scope: Scope,
    change: (index: CardIndex) => { result: Result; changed: boolean },
  ): Promise<Result> {
    const index = await loadForUpdate(path, scope);
    const cached = cache.get(path);
    if (cached?.index === index) cache.delete(path);
    let outcome: { result: Result; changed: boolean };
    try {
      outcome = change(index);
    } catch (error) {
      // Changes are all or nothing: the index is as the file is, and can stay cached.
      if (cached?.index === index) remember(path, cached.signature, index);
      throw error;
    }
    if (outcome.changed) await save(path, index);
    else if (cached?.index === index) remember(path, cached.signature, index);
    return outcome.result;
  }

  /** Under the lock: the index, after recovering a damaged file (kept aside and reported). */
  async function loadForUpdate(path: string, scope: Scope): Promise<CardIndex> {
    const loaded = await load(path, scope);
    if (loaded.damaged === 0) return loaded.index;
    const quarantinedPath = await quarantineFile(path);
    await save(path, loaded.index);
    reportCorruption(
      {
        path,
        quarantinedPath,
        recoveredRecords: loaded.index.size,
        droppedRecords: loaded.damaged,
        reason: loaded.reason ?? 'damaged cards',
      },
      { corruption, onCorruption },
    );
    return loaded.index;
  }

  /** Without the lock when the file is healthy; with it when it must be recovered. */
  async function read(path: string, scope: Scope): Promise<CardIndex> {
    const loaded = await load(path, scope);
    if (loaded.damaged === 0) return loaded.index;
    return withFileLock(path, () => loadForUpdate(path, scope), lock);
  }

  const store: MemoryStore = {
    async add(scope, drafts) {
      const resolved = resolveScope(scope);
      if (validateDrafts(drafts).length === 0) return [];
      return withFileLock(
        resolved.path,
        async () => {
          const merged = await update(resolved.path, resolved.scope, (index) => {
            const result = index.merge(drafts, {
              scope: resolved.scope,
              now: isoNow(clock),
              generateId: nextId,
            });
            return { result: result.results, changed: result.changed };
          });
          return merged.map(copyCard);
        },
        lock,
      );
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
      await withFileLock(
        path,
        () =>
          update(path, normalized, (index) => ({ result: undefined, changed: index.remove(ids) })),
        lock,
      );
    },
  };
  registerMemoryChangeFeed(store, async (scope, since) => {
    const resolved = resolveScope(scope);
    return changesOfIndex(await read(resolved.path, resolved.scope), since);
  });
  return store;
}

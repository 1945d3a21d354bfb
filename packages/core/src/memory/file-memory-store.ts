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
import { mergeCards, validateDrafts } from './merge-cards.js';

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
  return `${header}\n${cards.map((card) => JSON.stringify(card)).join(',\n')}\n]}\n`;
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
 * Why a JSON snapshot and not a JSON Lines log: every `add` has to compare the drafts with all
 * current cards anyway (de-duplication, supersession), and supersession updates existing cards, so
 * a log would need update records and compaction to stay readable. A scope holds hundreds to a few
 * thousand one-sentence cards, which rewrite in milliseconds; atomic rename means a crash leaves
 * the old or the new file, never a torn one; and the file stays easy to read and edit by hand
 * (like the `memory.json` it replaces). Reads take no lock.
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
  const cache = new Map<string, { signature: string; cards: MemoryCard[] }>();

  const signatureOf = (info: { ino: number; size: number; mtimeMs: number; ctimeMs: number }) =>
    `${info.ino}:${info.size}:${info.mtimeMs}:${info.ctimeMs}`;

  function remember(path: string, signature: string, cards: MemoryCard[]): void {
    cache.delete(path);
    if (cache.size >= CACHED_SCOPES) cache.delete(cache.keys().next().value!);
    cache.set(path, { signature, cards });
  }

  async function load(path: string, scope: Scope): Promise<LoadedCards> {
    return withStorageErrors(path, 'read', async () => {
      let handle: Awaited<ReturnType<typeof open>>;
      try {
        handle = await open(path, 'r');
      } catch (error) {
        if (!hasErrorCode(error, 'ENOENT')) throw error;
        cache.delete(path);
        return { cards: [], damaged: 0 };
      }
      try {
        const signature = signatureOf(await handle.stat());
        const cached = cache.get(path);
        if (cached?.signature === signature) return { cards: cached.cards, damaged: 0 };
        const loaded = parseCards(await handle.readFile('utf8'), scope);
        if (loaded.damaged === 0) remember(path, signature, loaded.cards);
        return loaded;
      } finally {
        await handle.close();
      }
    });
  }

  const tidied = new Set<string>();

  /** Under the lock: writes the cards and keeps them as the cached parse of the new file. */
  async function save(path: string, cards: MemoryCard[]): Promise<void> {
    if (!tidied.has(path)) {
      // Temporary files of writers killed mid-write; safe to delete while holding the lock.
      tidied.add(path);
      await removeLeftoverTempFiles(path);
    }
    await writeFileAtomic(path, serializeCards(cards));
    const info = await stat(path).catch(() => undefined);
    if (info) remember(path, signatureOf(info), cards);
  }

  /** Under the lock: the cards, after recovering a damaged file (kept aside and reported). */
  async function loadForUpdate(path: string, scope: Scope): Promise<MemoryCard[]> {
    const loaded = await load(path, scope);
    if (loaded.damaged === 0) return loaded.cards;
    const quarantinedPath = await quarantineFile(path);
    await save(path, loaded.cards);
    reportCorruption(
      {
        path,
        quarantinedPath,
        recoveredRecords: loaded.cards.length,
        droppedRecords: loaded.damaged,
        reason: loaded.reason ?? 'damaged cards',
      },
      { corruption, onCorruption },
    );
    return loaded.cards;
  }

  /** Without the lock when the file is healthy; with it when it must be recovered. */
  async function read(path: string, scope: Scope): Promise<MemoryCard[]> {
    const loaded = await load(path, scope);
    if (loaded.damaged === 0) return loaded.cards;
    return withFileLock(path, () => loadForUpdate(path, scope), lock);
  }

  return {
    async add(scope, drafts) {
      const resolved = resolveScope(scope);
      if (validateDrafts(drafts).length === 0) return [];
      return withFileLock(
        resolved.path,
        async () => {
          const existing = await loadForUpdate(resolved.path, resolved.scope);
          const result = mergeCards(existing, drafts, {
            scope: resolved.scope,
            now: isoNow(clock),
            generateId: nextId,
          });
          if (result.changed) await save(resolved.path, result.cards);
          return result.results.map(copyCard);
        },
        lock,
      );
    },

    async list(scope, options) {
      const resolved = resolveScope(scope);
      return visibleCards(await read(resolved.path, resolved.scope), options).map(copyCard);
    },

    async get(scope, id) {
      const resolved = resolveScope(scope);
      assertSafeId(id, 'card id');
      const card = (await read(resolved.path, resolved.scope)).find(
        (candidate) => candidate.id === id,
      );
      if (!card) throw cardNotFound(id);
      return copyCard(card);
    },

    async remove(scope, ids) {
      const { scope: normalized, path } = resolveScope(scope);
      assertCardIds(ids);
      if (ids.length === 0) return;
      const removed = new Set(ids);
      await withFileLock(
        path,
        async () => {
          const cards = await loadForUpdate(path, normalized);
          const kept = cards.filter((card) => !removed.has(card.id));
          if (kept.length !== cards.length) await save(path, kept);
        },
        lock,
      );
    },
  };
}

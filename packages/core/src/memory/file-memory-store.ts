import { readFile } from 'node:fs/promises';
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
  reportCorruption,
  scopeFolder,
  scopeKey,
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
export function parseCards(text: string, key: string): LoadedCards {
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
      const card = validateStoredCard(value, key);
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
    const card = validateStoredCard(value, key);
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
    return {
      key: scopeKey(scope),
      scope: normalizeScope(scope),
      path: join(scopeFolder(base, scope), 'cards.json'),
    };
  };

  async function load(path: string, key: string): Promise<LoadedCards> {
    const text = await withStorageErrors(path, 'read', async () => {
      try {
        return await readFile(path, 'utf8');
      } catch (error) {
        if (hasErrorCode(error, 'ENOENT')) return undefined;
        throw error;
      }
    });
    return text === undefined ? { cards: [], damaged: 0 } : parseCards(text, key);
  }

  /** Under the lock: the cards, after recovering a damaged file (kept aside and reported). */
  async function loadForUpdate(path: string, key: string): Promise<MemoryCard[]> {
    const loaded = await load(path, key);
    if (loaded.damaged === 0) return loaded.cards;
    const quarantinedPath = await quarantineFile(path);
    await writeFileAtomic(path, serializeCards(loaded.cards));
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
  async function read(path: string, key: string): Promise<MemoryCard[]> {
    const loaded = await load(path, key);
    if (loaded.damaged === 0) return loaded.cards;
    return withFileLock(path, () => loadForUpdate(path, key), lock);
  }

  return {
    async add(scope, drafts) {
      const resolved = resolveScope(scope);
      if (validateDrafts(drafts).length === 0) return [];
      return withFileLock(
        resolved.path,
        async () => {
          const existing = await loadForUpdate(resolved.path, resolved.key);
          const result = mergeCards(existing, drafts, {
            scope: resolved.scope,
            now: isoNow(clock),
            generateId: nextId,
          });
          if (result.changed) await writeFileAtomic(resolved.path, serializeCards(result.cards));
          return result.results.map(copyCard);
        },
        lock,
      );
    },

    async list(scope, options) {
      const { key, path } = resolveScope(scope);
      return visibleCards(await read(path, key), options);
    },

    async get(scope, id) {
      const { key, path } = resolveScope(scope);
      assertSafeId(id, 'card id');
      const card = (await read(path, key)).find((candidate) => candidate.id === id);
      if (!card) throw cardNotFound(id);
      return card;
    },

    async remove(scope, ids) {
      const { key, path } = resolveScope(scope);
      assertCardIds(ids);
      if (ids.length === 0) return;
      const removed = new Set(ids);
      await withFileLock(
        path,
        async () => {
          const cards = await loadForUpdate(path, key);
          const kept = cards.filter((card) => !removed.has(card.id));
          if (kept.length !== cards.length) await writeFileAtomic(path, serializeCards(kept));
        },
        lock,
      );
    },
  };
}

import type { MemoryStore, Scope } from '../contracts/index.js';
import { NotFoundError } from '../errors/index.js';
import {
  assertRequiredScope,
  assertSafeId,
  isoNow,
  normalizeScope,
  scopeKey,
  systemClock,
  validateRequiredScope,
} from '../storage/index.js';
import { type CardIndex, createCardIndex } from './card-index.js';
import {
  assertCardIds,
  copyCard,
  generateCardId,
  type MemoryStoreOptions,
  safeIdGenerator,
  visibleCards,
} from './card-records.js';
import { changesOfIndex, registerMemoryChangeFeed } from './memory-change-feed.js';

export function cardNotFound(id: string): NotFoundError {
  return new NotFoundError({ message: `No memory card ${id} in this scope.`, id });
}

/**
 * A memory store that lives in this process (lost on exit), with the same de-duplication and
 * supersession as the file store (`mergeCards`). Each scope keeps its card index, updated with
 * every change, so an add costs look-ups, not a pass over every card. Returned cards are copies.
 */
export function createInMemoryMemoryStore({
  requiredScope = [],
  clock = systemClock,
  generateId = generateCardId,
}: MemoryStoreOptions = {}): MemoryStore {
  const required = validateRequiredScope(requiredScope);
  const nextId = safeIdGenerator(generateId);
  const scopes = new Map<string, CardIndex>();

  const resolveScope = (scope: Scope): { key: string; scope: Scope } => {
    assertRequiredScope(scope, required);
    return { key: scopeKey(scope), scope: normalizeScope(scope) };
  };

  const store: MemoryStore = {
    async add(scope, drafts) {
      const resolved = resolveScope(scope);
      let index = scopes.get(resolved.key);
      const created = !index;
      index ??= createCardIndex();
      // All or nothing: a throwing merge leaves the index as it was.
      const result = index.merge(drafts, {
        scope: resolved.scope,
        now: isoNow(clock),
        generateId: nextId,
      });
      if (created && result.changed) scopes.set(resolved.key, index);
      return result.results.map(copyCard);
    },

    async list(scope, options) {
      const { key } = resolveScope(scope);
      return visibleCards(scopes.get(key)?.cards() ?? [], options).map(copyCard);
    },

    async get(scope, id) {
      const { key } = resolveScope(scope);
      assertSafeId(id, 'card id');
      const card = scopes.get(key)?.get(id);
      if (!card) throw cardNotFound(id);
      return copyCard(card);
    },

    async remove(scope, ids) {
      const { key } = resolveScope(scope);
      assertCardIds(ids);
      scopes.get(key)?.remove(ids);
    },
  };
  registerMemoryChangeFeed(store, async (scope, since) =>
    changesOfIndex(scopes.get(resolveScope(scope).key), since),
  );
  return store;
}

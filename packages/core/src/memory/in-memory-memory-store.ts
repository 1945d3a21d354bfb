import type { MemoryCard, MemoryStore, Scope } from '../contracts/index.js';
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
import {
  assertCardIds,
  copyCard,
  generateCardId,
  type MemoryStoreOptions,
  safeIdGenerator,
  visibleCards,
} from './card-records.js';
import { mergeCards } from './merge-cards.js';

export function cardNotFound(id: string): NotFoundError {
  return new NotFoundError({ message: `No memory card ${id} in this scope.`, id });
}

/**
 * A memory store that lives in this process (lost on exit), with the same de-duplication and
 * supersession as the file store (`mergeCards`). Returned cards are copies.
 */
export function createInMemoryMemoryStore({
  requiredScope = [],
  clock = systemClock,
  generateId = generateCardId,
}: MemoryStoreOptions = {}): MemoryStore {
  const required = validateRequiredScope(requiredScope);
  const nextId = safeIdGenerator(generateId);
  const scopes = new Map<string, MemoryCard[]>();

  const resolveScope = (scope: Scope): { key: string; scope: Scope } => {
    assertRequiredScope(scope, required);
    return { key: scopeKey(scope), scope: normalizeScope(scope) };
  };

  return {
    async add(scope, drafts) {
      const resolved = resolveScope(scope);
      const result = mergeCards(scopes.get(resolved.key) ?? [], drafts, {
        scope: resolved.scope,
        now: isoNow(clock),
        generateId: nextId,
      });
      if (result.changed) scopes.set(resolved.key, result.cards);
      return result.results.map(copyCard);
    },

    async list(scope, options) {
      const { key } = resolveScope(scope);
      return visibleCards(scopes.get(key) ?? [], options).map(copyCard);
    },

    async get(scope, id) {
      const { key } = resolveScope(scope);
      assertSafeId(id, 'card id');
      const card = scopes.get(key)?.find((candidate) => candidate.id === id);
      if (!card) throw cardNotFound(id);
      return copyCard(card);
    },

    async remove(scope, ids) {
      const { key } = resolveScope(scope);
      assertCardIds(ids);
      const cards = scopes.get(key);
      if (!cards || ids.length === 0) return;
      const removed = new Set(ids);
      scopes.set(
        key,
        cards.filter((card) => !removed.has(card.id)),
      );
    },
  };
}

/**
 * The `MemoryStore` methods every store of this package shares, over a card index per scope:
 * drafts are merged through the index (de-duplication and supersession are look-ups), and what a
 * change touched is handed to the store as one record to persist. The in-memory store keeps the
 * indexes; the file store loads them from its logs and appends the records.
 */
import type { MemoryCard, MemoryCardDraft, MemoryStore, Scope } from '../contracts/index.js';
import {
  assertRequiredScope,
  assertSafeId,
  createScopeQueue,
  isoNow,
  normalizeScope,
  systemClock,
  validateRequiredScope,
} from '../storage/index.js';
import type { CardIndex } from './card-index.js';
import type { CardLogRecord } from './card-log.js';
import type { LogPosition } from './card-log-position.js';
import {
  assertCardIds,
  cardNotFound,
  copyCard,
  generateCardId,
  type MemoryStoreOptions,
  safeIdGenerator,
  visibleCards,
} from './card-records.js';
import { changesOfIndex, registerMemoryChangeFeed } from './memory-change-feed.js';
import { validateDrafts } from './validate-drafts.js';

/** A change of one scope's index: its result, and the record that persists it (none: no change). */
export type CardIndexChange<Result> = (index: CardIndex) => {
  result: Result;
  record?: CardLogRecord;
};

/** Where a store keeps the card index of each scope. */
export interface CardIndexes<Location> {
  /** Where the cards of a checked, normalized scope live. */
  locate(scope: Scope): Location;
  /** The scope's index as it is now; undefined for a scope without cards. */
  read(location: Location, scope: Scope): Promise<CardIndex | undefined>;
  /** Where the scope's log stood for the index `read` last returned (stores with a log). */
  position?(location: Location): LogPosition | undefined;
  /** Applies `change` to the scope's index (all or nothing) and persists its record. */
  update<Result>(
    location: Location,
    scope: Scope,
    change: CardIndexChange<Result>,
  ): Promise<Result>;
}

/** Merges drafts into a scope's index; the record puts every card it changed, once. */
function mergeChange(
  index: CardIndex,
  drafts: readonly MemoryCardDraft[],
  scope: Scope,
  options: { now: string; generateId: () => string },
): ReturnType<CardIndexChange<MemoryCard[]>> {
  const { results, outcomes, changed } = index.merge(drafts, { scope, ...options });
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
}

/**
 * A `MemoryStore` over `indexes`, with the scope checks, id checks and copies every store owes
 * its callers; registers its change feed for memory search. Also returns the store's checked
 * `locate`: a scope's location after the same checks as the store's calls.
 */
export function createCardIndexStore<Location extends string>(
  { requiredScope = [], clock = systemClock, generateId = generateCardId }: MemoryStoreOptions,
  indexes: CardIndexes<Location>,
): { store: MemoryStore; locate: (scope: Scope) => Location } {
  const required = validateRequiredScope(requiredScope);
  const nextId = safeIdGenerator(generateId);
  // Adds of one scope queued behind each other are merged and persisted as one change (one lock
  // and one appended line for the file store); removals keep their place in that line.
  const queue = createScopeQueue();
  const resolve = (scope: Scope) => {
    assertRequiredScope(scope, required);
    const normalized = normalizeScope(scope);
    return { scope: normalized, location: indexes.locate(normalized) };
  };

  const store: MemoryStore = {
    async add(scope, drafts) {
      const resolved = resolve(scope);
      const valid = validateDrafts(drafts);
      if (valid.length === 0) return [];
      return queue.add(resolved.location, valid, async (joined) => {
        const merged = await indexes.update(resolved.location, resolved.scope, (index) =>
          mergeChange(index, joined, resolved.scope, { now: isoNow(clock), generateId: nextId }),
        );
        // Copied before the next change of the line can touch the index's cards.
        return merged.map(copyCard);
      });
    },

    async list(scope, options) {
      const resolved = resolve(scope);
      const index = await indexes.read(resolved.location, resolved.scope);
      return visibleCards(index?.cards() ?? [], options).map(copyCard);
    },

    async get(scope, id) {
      const resolved = resolve(scope);
      assertSafeId(id, 'card id');
      const card = (await indexes.read(resolved.location, resolved.scope))?.get(id);
      if (!card) throw cardNotFound(id);
      return copyCard(card);
    },

    async remove(scope, ids) {
      const resolved = resolve(scope);
      assertCardIds(ids);
      if (ids.length === 0) return;
      await queue.run(resolved.location, () =>
        indexes.update(resolved.location, resolved.scope, (index) => {
          const present = [...new Set(ids)].filter((id) => index.get(id) !== undefined);
          if (present.length === 0) return { result: undefined };
          index.remove(present);
          return { result: undefined, record: { remove: present } };
        }),
      );
    },
  };
  registerMemoryChangeFeed(store, async (scope, since) => {
    const resolved = resolve(scope);
    const changes = changesOfIndex(await indexes.read(resolved.location, resolved.scope), since);
    const log = indexes.position?.(resolved.location);
    return log ? { ...changes, log } : changes;
  });
  return { store, locate: (scope) => resolve(scope).location };
}

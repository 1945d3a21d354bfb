/**
 * Memory cards of a shared store (PostgreSQL, Redis) kept in step in each process, so that an `add`
 * costs the same at 100 cards as at 100,000 and under many writers.
 *
 * Each process keeps, per scope, core's card index (`createCardIndex`: the look-ups that make a
 * merge cost a few map reads) and the scope's revision it reflects. The store numbers every
 * committed change of a scope (its revision) and stamps each card it writes with that number, so
 * catching up with other processes is reading the cards stamped after the cached revision and
 * putting them into the index, never the whole scope. A removal cannot be replayed that way: it
 * moves the scope's reset revision, and a process whose cache is older reads the scope again.
 *
 * The write itself is optimistic: merge into the cached index, then commit unless a card written
 * since the cached revision could change the merge (driver-kit's conflict keys). Catching up is
 * lazy: a commit does not bring back what other writers committed meanwhile, so a writer never
 * reads nor indexes the cards of writers adding unrelated cards. The index then holds the scope
 * at `revision` plus this process's own commits after it (`pending`, which a catch-up puts back
 * in stored order). It catches up only when it must: when a commit finds a conflict (the store
 * answers with what changed since and with the stored form of the cards this merge touched;
 * `rollBack` puts those back, the changes are applied, and the merge runs again on the newer
 * cards), and when the scope is listed. Merges are pure and take milliseconds, so this is a short
 * loop, and nothing is locked while a process merges.
 */
import type { MemoryCard, MemoryCardDraft, Scope } from '../contracts/index.js';
import { type CardIndex, createCardIndex } from '../memory/index.js';

/** A scope's cards as this process last saw them. Mutable: owned by one store. */
export interface SyncedCards {
  index: CardIndex;
  /** The scope's revision that the index reflects (0: nothing stored). */
  revision: number;
  /**
   * Identity of the stored scope, for stores whose data can vanish and be created again (a Redis
   * key that expired): a cache of another generation is read again. '' when not used.
   */
  generation: string;
  /**
   * The newest revision this process committed (at least `revision`). Above `revision`, the index
   * lacks what others committed in between, so even a merge that writes nothing is checked
   * against the store before it answers.
   */
  seen: number;
  /** Ids of the cards this process added after `revision`, oldest first. */
  pending: string[];
}

/** What a store answers when asked for the changes after a revision. */
export interface ScopeChanges {
  revision: number;
  generation: string;
  /**
   * Whether `cards` is every card of the scope (the cache was of another generation, or older
   * than the scope's last removal) rather than only the cards written after the cached revision.
   */
  complete: boolean;
  /** Cards in stored order (by position). */
  cards: readonly MemoryCard[];
}

/** Scopes whose cards a store keeps by default. */
export const SYNCED_SCOPES = 1_000;

/** A bounded map from scope key to its synced cards; the least recently used scope leaves first. */
export interface SyncedCardCache {
  get(key: string): SyncedCards | undefined;
  /** Applies what the store answered and returns the scope's synced cards. */
  update(key: string, changes: ScopeChanges): SyncedCards;
  delete(key: string): void;
}

export function createSyncedCardCache(limit = SYNCED_SCOPES): SyncedCardCache {
  const scopes = new Map<string, SyncedCards>();
  const touch = (key: string, synced: SyncedCards) => {
    scopes.delete(key);
    if (scopes.size >= limit) scopes.delete(scopes.keys().next().value!);
    scopes.set(key, synced);
    return synced;
  };
  return {
    get(key) {
      const synced = scopes.get(key);
      return synced ? touch(key, synced) : undefined;
    },
    update(key, changes) {
      const cached = scopes.get(key);
      if (changes.complete || !cached || cached.generation !== changes.generation) {
        return touch(key, {
          index: createCardIndex(changes.cards),
          revision: changes.revision,
          generation: changes.generation,
          seen: changes.revision,
          pending: [],
        });
      }
      // This process's own cards committed after the cached revision are among the changes, at
      // their stored places between the others': they are put back in stored order.
      if (cached.pending.length > 0) cached.index.remove(cached.pending);
      if (changes.cards.length > 0) cached.index.put(changes.cards);
      cached.pending = [];
      cached.revision = changes.revision;
      cached.seen = Math.max(cached.seen, changes.revision);
      return touch(key, cached);
    },
    delete(key) {
      scopes.delete(key);
    },
  };
}

/** A merge into a synced index, with what it changed. */
export interface SyncedMerge {
  /** For each draft, its card as it ends up (the index's objects: copy before returning them). */
  results: MemoryCard[];
  /** The cards to write: new ones and changed ones, in the index's order. Empty: nothing to write. */
  writes: MemoryCard[];
  /** The ids of the new cards among `writes`, in the order they were added. */
  added: string[];
}

/**
 * Merges drafts into the index with core's rules (`CardIndex.merge`) and lists the cards it
 * changed, which the store must commit at the index's revision or undo with `rollBack`.
 */
export function mergeSynced(
  index: CardIndex,
  drafts: readonly MemoryCardDraft[],
  options: { scope: Scope; now: string; generateId: () => string },
): SyncedMerge {
  const before = index.cursor();
  const { results, outcomes, changed } = index.merge(drafts, options);
  if (!changed) return { results, writes: [], added: [] };
  const ids = index.changesSince(before) ?? [];
  const writes = ids
    .map((id) => index.get(id))
    .filter((card): card is MemoryCard => card !== undefined);
  const added = outcomes.flatMap((outcome) => (outcome.kind === 'added' ? [outcome.cardId] : []));
  return { results, writes, added };
}

/**
 * Undoes an uncommitted merge: each card it wrote is set back to its stored form (`stored`, read
 * from the store after the failed commit) or removed when the store does not have it.
 */
export function rollBack(
  index: CardIndex,
  writes: readonly MemoryCard[],
  stored: readonly MemoryCard[],
): void {
  const kept = new Set(stored.map((card) => card.id));
  index.remove(writes.map((card) => card.id).filter((id) => !kept.has(id)));
  if (stored.length > 0) index.put(stored);
}

/**
 * `add` of a shared store (PostgreSQL, Redis) on synced cards, with the store's commit as the only
 * part that differs: merge the drafts into the cached index, commit in one round trip, and on a
 * conflict put back what the merge touched, catch up and merge again.
 *
 * The commit is checked by conflict keys (see `conflict-keys.ts`), not by the scope's revision
 * alone: it succeeds when no card written since the cache's revision carries a key the merge
 * looked up, so writers adding unrelated cards to one scope do not make each other merge again.
 * Nor do they read each other's cards: a successful commit answers only the new revision, and the
 * cache catches up lazily (see `synced-cards.ts`), when a key collides or the scope is listed. A
 * merge that writes nothing (a duplicate) answers from the cache when it is current, and is
 * otherwise checked with the store the same way, writing nothing.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { MemoryCard, MemoryCardDraft } from '../contracts/index.js';
import { StorageError } from '../errors/index.js';
import { analyzeCardContent, type CardAnalysis } from '../memory/card-analysis.js';
import type { CardMergeOptions } from '../memory/index.js';
import { requireOptions } from '../validation/index.js';
import { type AnalyzeContent, cardConflictKeys, draftConflictKeys } from './conflict-keys.js';
import {
  mergeSynced,
  rollBack,
  type ScopeChanges,
  type SyncedCardCache,
  type SyncedCards,
} from './synced-cards.js';

/** What a store's commit is given. */
export interface SyncedCommit {
  /**
   * The scope's generation and revision the merge saw (its cache's): the cards the index holds
   * are the scope at that revision plus this process's own commits after it.
   */
  generation: string;
  revision: number;
  /**
   * The new and changed cards to write, in the index's order. Empty: only check that nothing the
   * merge looked up changed since `revision` (commits nothing, the revision stays).
   */
  writes: readonly MemoryCard[];
  /** The keys the merge looked cards up by: a card written since that carries one is a conflict. */
  lookedUp: readonly string[];
  /** The keys of the written cards, to stamp with the new revision. */
  writtenKeys: readonly string[];
}

/** What a store's commit answers. */
export type SyncedCommitOutcome =
  | {
      committed: true;
      /** The scope's revision after the commit (unchanged when nothing was written). */
      revision: number;
      generation: string;
    }
  | {
      committed: false;
      /** What changed since the merge's revision (or every card), for the cache. */
      changes: ScopeChanges;
      /** The stored form of the cards the merge tried to write; absent ones left out. */
      stored: readonly MemoryCard[];
    };

export interface SyncedAddOptions {
  cache: SyncedCardCache;
  /** The scope's key in the cache (and in messages). */
  key: string;
  drafts: readonly MemoryCardDraft[];
  /** Merge options, asked again for each attempt (the time moves on). */
  mergeOptions: () => CardMergeOptions;
  /** Reads the scope's changes when it is not cached. */
  load: () => Promise<SyncedCards>;
  commit: (commit: SyncedCommit) => Promise<SyncedCommitOutcome>;
  /** Attempts before giving up under contention. @default 100 */
  maxAttempts?: number;
  /** Longest random pause after a lost commit, ms. @default 20 */
  maxPauseMs?: number;
}

/** A copy of a card the caller may change without changing the cache. */
export function copyCard(card: MemoryCard): MemoryCard {
  return { ...card, tags: [...card.tags], scope: { ...card.scope } };
}

/** An analysis per content for one add: drafts and the cards made from them are analysed once. */
function analysesOfOneAdd(): AnalyzeContent {
  const analyses = new Map<string, CardAnalysis>();
  return (content) => {
    let analysis = analyses.get(content);
    if (!analysis) {
      analysis = analyzeCardContent(content);
      analyses.set(content, analysis);
    }
    return analysis;
  };
}

/** Merges and commits `drafts` (see the module comment); returns each draft's card, copied. */
export async function addSynced(options: SyncedAddOptions): Promise<MemoryCard[]> {
  const {
    cache,
    key,
    drafts,
    mergeOptions,
    load,
    commit,
    maxAttempts = 100,
    maxPauseMs = 20,
  } = requireOptions(options, 'addSynced');
  const analyze = analysesOfOneAdd();
  const lookedUp = draftConflictKeys(drafts, analyze);
  let cards = cache.get(key) ?? (await load());
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const merge = mergeSynced(cards.index, drafts, mergeOptions());
    // Nothing to write and nothing committed since the cache's revision: the cache is the scope
    // as this process last saw it, as a merge against the store would.
    if (merge.writes.length === 0 && cards.seen === cards.revision) {
      return merge.results.map(copyCard);
    }
    let outcome: SyncedCommitOutcome;
    try {
      outcome = await commit({
        generation: cards.generation,
        revision: cards.revision,
        writes: merge.writes,
        lookedUp,
        writtenKeys: [...new Set(merge.writes.flatMap((card) => cardConflictKeys(card, analyze)))],
      });
    } catch (error) {
      // Whether the commit happened is unknown (the connection may have dropped after it), and
      // the cache holds the merge: forget the scope, so the next call reads it as stored.
      cache.delete(key);
      throw error;
    }
    if (outcome.committed) {
      if (merge.writes.length > 0) recordCommit(cards, merge.added, outcome);
      return merge.results.map(copyCard);
    }
    rollBack(cards.index, merge.writes, outcome.stored);
    cards = cache.update(key, outcome.changes);
    // Writers that lost together would otherwise all try again together: a short random pause,
    // longer after each loss, lets one of them through at a time.
    await sleep(Math.random() * Math.min(maxPauseMs, attempt));
  }
  throw new StorageError({
    message: `Gave up adding memory cards to ${key} after ${maxAttempts} attempts: other writers kept changing the scope.`,
    path: key,
  });
}

/**
 * Moves the cache past its own commit: to the new revision when nobody committed in between (the
 * index is then the scope as stored), otherwise its new cards wait in `pending` for a catch-up.
 */
function recordCommit(
  cards: SyncedCards,
  added: readonly string[],
  outcome: { revision: number; generation: string },
): void {
  cards.generation = outcome.generation;
  if (cards.seen === cards.revision && outcome.revision === cards.revision + 1) {
    cards.revision = outcome.revision;
  } else {
    cards.pending.push(...added);
  }
  cards.seen = outcome.revision;
}

/** The cards a `list` returns from synced cards: copies, current ones unless asked for all. */
export function listedCards(cards: SyncedCards, includeSuperseded = false): MemoryCard[] {
  return cards.index
    .cards()
    .filter((card) => includeSuperseded || card.supersededBy === undefined)
    .map(copyCard);
}

/**
 * Keeps the cache in step after this process removed `ids` and the store moved the scope to
 * `revision`: a cache that was at the revision before drops them; any other is forgotten.
 */
export function applyRemoval(
  cache: SyncedCardCache,
  key: string,
  ids: readonly string[],
  stored: { revision: number; generation: string },
): void {
  const cached = cache.get(key);
  if (
    cached?.generation === stored.generation &&
    cached.seen === cached.revision &&
    cached.revision === stored.revision - 1
  ) {
    cached.index.remove(ids);
    cached.revision = stored.revision;
    cached.seen = stored.revision;
  } else {
    cache.delete(key);
  }
}

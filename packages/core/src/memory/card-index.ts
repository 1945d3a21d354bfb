/**
 * The look-up structures that let `add` de-duplicate and supersede without comparing a draft with
 * every stored card. A memory store keeps one per scope and updates it with each change, so an add
 * costs about the same with 100 cards as with 100,000; `mergeCards` builds one for a single call.
 *
 * - **Exact duplicates**: a map from normalized content to the current card.
 * - **Near duplicates**: a near duplicate's token set contains the draft's set `x` or is
 *   contained in it (a replacement is not a near duplicate), with a Jaccard similarity of at least
 *   t. A superset contains the draft's rarest token, so it is among the cards an inverted index
 *   lists under that token. A subset is `x` without at most `m = |x| − ⌈t·|x|⌉` tokens (1 for
 *   7 to 13 tokens), so it is found by looking up each such subset in a map keyed by token set;
 *   when there are too many subsets (long cards), the cards listed under any `m + 1` tokens of
 *   `x` are compared instead (prefix filtering), of which a subset contains one.
 * - **Supersession**: the older card is the draft with one span of at most 3 tokens replaced, and
 *   the same type. Each card is listed under a key per span that could be cut out of it (type,
 *   tokens before, tokens after: at most 4·(n + 1) small integers), so the candidates are the
 *   cards that agree with the draft on all but one short span, however many cards share their
 *   first or last words.
 *
 * Every candidate is then checked with the same tests as before (`isNearDuplicate`,
 * `supersedes`), so the outcome of a merge is exactly what comparing with every card would give.
 * Each card is analysed once, when it is indexed; nothing is cleared and re-analysed.
 */
import { randomUUID } from 'node:crypto';
import type { MemoryCard, MemoryCardDraft, MemoryCardType, Scope } from '../contracts/index.js';
import {
  analyzeCardContent,
  type CardAnalysis,
  isNearDuplicate,
  jaccard,
  NEAR_DUPLICATE_THRESHOLD,
  SUPERSEDING_CARD_TYPES,
  supersedes,
} from './card-analysis.js';
import { shapeKeys, subsetKeys, tokenSetKey } from './card-lookup-keys.js';
import { newCard } from './card-records.js';
import { type ValidDraft, validateDrafts } from './validate-drafts.js';

export interface CardMergeOptions {
  /** The scope stamped on new cards. */
  scope: Scope;
  /** ISO 8601 time stamped on new and changed cards. */
  now: string;
  /** Creates the id of a new card. */
  generateId: () => string;
}

/** What happened to one draft. */
export type MergeOutcome =
  | { kind: 'duplicate'; cardId: string }
  | { kind: 'near-duplicate'; cardId: string }
  | { kind: 'added'; cardId: string; superseded: string[] };

export interface CardIndexMergeResult {
  /** For each draft, its card as it ends up: the existing card for duplicates. */
  results: MemoryCard[];
  outcomes: MergeOutcome[];
  /** Whether anything must be written. */
  changed: boolean;
}

/** The cards of one scope with their look-up structures. Mutable: owned by one store. */
export interface CardIndex {
  /** Every card (superseded ones included), in insertion order. The store's own objects. */
  cards(): MemoryCard[];
  get(id: string): MemoryCard | undefined;
  /** Number of cards, superseded ones included. */
  readonly size: number;
  /**
   * Merges drafts by the rules of `mergeCards`. All or nothing: when anything throws (an invalid
   * draft, a failing id generator), the index is left as it was.
   */
  merge(drafts: readonly MemoryCardDraft[], options: CardMergeOptions): CardIndexMergeResult;
  /** Removes cards by id; returns whether any was there. */
  remove(ids: readonly string[]): boolean;
  /**
   * Adds or replaces cards exactly as given (changes read back from storage, such as another
   * process's writes), recorded as changes like any other. No merging.
   */
  put(cards: readonly MemoryCard[]): void;
  /** Where the index is in its history of changes, for `changesSince`. */
  cursor(): CardIndexCursor;
  /**
   * The ids changed (added, updated, superseded or removed) since `cursor`, or undefined when the
   * cursor is of another index or older than the changes the index remembers: then the reader
   * must take every card again.
   */
  changesSince(cursor: CardIndexCursor): string[] | undefined;
}

/** A position in one index's history of changes. */
export interface CardIndexCursor {
  /** Differs between indexes, also across processes and reloads of the same file. */
  generation: string;
  revision: number;
}

/** Changes an index remembers for readers that sync incrementally. */
const CHANGE_LOG_LIMIT = 10_000;

function addTo<Key>(map: Map<Key, Set<string>>, key: Key, id: string): void {
  let set = map.get(key);
  if (!set) {
    set = new Set();
    map.set(key, set);
  }
  set.add(id);
}

function removeFrom<Key>(map: Map<Key, Set<string>>, key: Key, id: string): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(id);
  if (set.size === 0) map.delete(key);
}

function mergeTags(first: readonly string[], second: readonly string[]): string[] {
  return [...new Set([...first, ...second])];
}

/** Builds the index of `cards` (not copied: the index holds these objects and never mutates them). */
export function createCardIndex(cards: readonly MemoryCard[] = []): CardIndex {
  // Insertion order is the Map's order; replacing a card keeps its place.
  const byId = new Map<string, MemoryCard>();
  // Insertion number per id: ties between equally similar near duplicates go to the oldest card.
  const order = new Map<string, number>();
  let nextOrder = 0;
  const exact = new Map<string, string>();
  const postings = new Map<string, Set<string>>();
  const tokenSets = new Map<string, Set<string>>();
  // A random UUID per index (not a module counter, which every index of the process would share).
  const generation = randomUUID();
  // Ids in the order they changed; log[i] is the change that made the revision logStart + i + 1.
  let log: string[] = [];
  let logStart = 0;
  const record = (id: string) => {
    log.push(id);
    if (log.length > 2 * CHANGE_LOG_LIMIT) {
      logStart += log.length - CHANGE_LOG_LIMIT;
      log = log.slice(-CHANGE_LOG_LIMIT);
    }
  };
  const shapes = new Map<number, Set<string>>();
  // Each card's analysis, by id, kept while the card is in this index (not in a module-level
  // cache): a new version of a card with the same content (tags merged, superseded) reuses it.
  const analyses = new Map<string, CardAnalysis>();
  const analysisOf = (card: MemoryCard): CardAnalysis => {
    const cached = analyses.get(card.id);
    if (cached?.content === card.content) return cached;
    const analysis = analyzeCardContent(card.content);
    analyses.set(card.id, analysis);
    return analysis;
  };
  // The look-ups are built on the first merge: a process that only reads a large store (a search,
  // a list) never analyses its cards.
  let built = false;

  function indexCard(card: MemoryCard): void {
    if (!built || card.supersededBy !== undefined) return;
    const analysis = analysisOf(card);
    exact.set(analysis.normalized, card.id);
    for (const token of analysis.set) addTo(postings, token, card.id);
    addTo(tokenSets, tokenSetKey(analysis.set), card.id);
    if (SUPERSEDING_CARD_TYPES.has(card.type)) {
      for (const key of shapeKeys(card.type, analysis.tokens)) addTo(shapes, key, card.id);
    }
  }

  function unindexCard(card: MemoryCard): void {
    if (!built || card.supersededBy !== undefined) return;
    const analysis = analysisOf(card);
    if (exact.get(analysis.normalized) === card.id) exact.delete(analysis.normalized);
    for (const token of analysis.set) removeFrom(postings, token, card.id);
    removeFrom(tokenSets, tokenSetKey(analysis.set), card.id);
    if (SUPERSEDING_CARD_TYPES.has(card.type)) {
      for (const key of shapeKeys(card.type, analysis.tokens)) removeFrom(shapes, key, card.id);
    }
  }

  /** The one way a card enters or changes: keeps every look-up in step with `byId`. */
  function put(card: MemoryCard): void {
    const previous = byId.get(card.id);
    if (previous) unindexCard(previous);
    else order.set(card.id, nextOrder++);
    byId.set(card.id, card);
    indexCard(card);
    record(card.id);
  }

  function drop(id: string): void {
    const previous = byId.get(id);
    if (!previous) return;
    unindexCard(previous);
    byId.delete(id);
    order.delete(id);
    analyses.delete(id);
    record(id);
  }

  for (const card of cards) put(card);
  // The cards the index starts with are its first state, not changes a reader must replay.
  logStart += log.length;
  log = [];

  /** The current card that is the draft's best near duplicate (see the module comment). */
  function nearDuplicateOf(draft: CardAnalysis): MemoryCard | undefined {
    const size = draft.set.size;
    if (size === 0) return undefined;
    // A small epsilon: 0.85 · 20 must count as 17, not 17.000000000000004.
    const missing = size - Math.ceil(NEAR_DUPLICATE_THRESHOLD * size - 1e-9);
    const byFrequency = [...draft.set]
      .map((token) => ({ token, frequency: postings.get(token)?.size ?? 0 }))
      .sort((left, right) => left.frequency - right.frequency)
      .map(({ token }) => token);
    const lists: Array<Iterable<string>> = [postings.get(byFrequency[0]!) ?? []];
    const subsets = subsetKeys([...draft.set].sort(), missing);
    if (subsets) {
      for (const key of subsets) {
        const ids = tokenSets.get(key);
        if (ids) lists.push(ids);
      }
    } else {
      for (const token of byFrequency.slice(1, missing + 1)) {
        lists.push(postings.get(token) ?? []);
      }
    }
    let best: { card: MemoryCard; score: number; order: number } | undefined;
    const seen = new Set<string>();
    for (const ids of lists) {
      for (const id of ids) {
        if (seen.has(id)) continue;
        seen.add(id);
        const card = byId.get(id)!;
        const analysis = analysisOf(card);
        if (!isNearDuplicate(analysis, draft)) continue;
        const score = jaccard(analysis.set, draft.set);
        const position = order.get(id)!;
        if (!best || score > best.score || (score === best.score && position < best.order)) {
          best = { card, score, order: position };
        }
      }
    }
    return best?.card;
  }

  /** The current cards `draft` supersedes, oldest first. */
  function supersededBy(draft: CardAnalysis, type: MemoryCardType): MemoryCard[] {
    if (!SUPERSEDING_CARD_TYPES.has(type)) return [];
    const candidates = new Set<string>();
    for (const key of shapeKeys(type, draft.tokens)) {
      for (const id of shapes.get(key) ?? []) candidates.add(id);
    }
    return [...candidates]
      .map((id) => byId.get(id)!)
      .filter((card) => card.type === type && supersedes(analysisOf(card), draft))
      .sort((left, right) => order.get(left.id)! - order.get(right.id)!);
  }

  function mergeDraft(
    draft: ValidDraft,
    { scope, now, generateId }: CardMergeOptions,
    undo: Map<string, MemoryCard | undefined>,
  ): MergeOutcome {
    const change = (card: MemoryCard) => {
      if (!undo.has(card.id)) undo.set(card.id, byId.get(card.id));
      put(card);
    };
    const analysis = analyzeCardContent(draft.content);
    const duplicate = exact.get(analysis.normalized);
    if (duplicate !== undefined) return { kind: 'duplicate', cardId: duplicate };

    const near = nearDuplicateOf(analysis);
    if (near) {
      change({ ...near, tags: mergeTags(near.tags, draft.tags), updatedAt: now });
      return { kind: 'near-duplicate', cardId: near.id };
    }

    const card = newCard(draft, { id: generateId(), now, scope });
    analyses.set(card.id, analysis);
    const superseded = supersededBy(analysis, draft.type);
    for (const older of superseded) change({ ...older, supersededBy: card.id, updatedAt: now });
    change(card);
    return { kind: 'added', cardId: card.id, superseded: superseded.map((older) => older.id) };
  }

  return {
    cards: () => [...byId.values()],
    get: (id) => byId.get(id),
    get size() {
      return byId.size;
    },
    merge(drafts, options) {
      const valid = validateDrafts(drafts);
      if (!built) {
        built = true;
        for (const card of byId.values()) indexCard(card);
      }
      // The card each changed id had before this merge (undefined: it did not exist).
      const undo = new Map<string, MemoryCard | undefined>();
      const outcomes: MergeOutcome[] = [];
      try {
        for (const draft of valid) outcomes.push(mergeDraft(draft, options, undo));
      } catch (error) {
        for (const [id, previous] of [...undo].reverse()) {
          if (previous) put(previous);
          else drop(id);
        }
        throw error;
      }
      return {
        results: outcomes.map((outcome) => byId.get(outcome.cardId)!),
        outcomes,
        changed: undo.size > 0,
      };
    },
    cursor: () => ({ generation, revision: logStart + log.length }),
    changesSince(cursor) {
      if (cursor.generation !== generation || cursor.revision < logStart) return undefined;
      return [...new Set(log.slice(cursor.revision - logStart))];
    },
    put(changed) {
      for (const card of changed) put(card);
    },
    remove(ids) {
      let removed = false;
      for (const id of ids) {
        if (!byId.has(id)) continue;
        drop(id);
        removed = true;
      }
      return removed;
    },
  };
}

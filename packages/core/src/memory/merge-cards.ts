/**
 * How new memory cards are merged into the cards a scope already has. Pure: nothing is mutated,
 * no I/O, no model calls. The heuristic, and its limits:
 *
 * 1. **Exact duplicate** — the normalized content (Unicode NFKC, so full-width forms match their
 *    ASCII forms; lower case; sentence punctuation removed; whitespace collapsed) equals a current
 *    card's: the existing card is returned unchanged.
 * 2. **Near duplicate** — the sets of content tokens (words without stop words, plurals
 *    stemmed; CJK text as character bigrams) have a Jaccard similarity of at least 0.85, and the
 *    difference is not a replacement (both sides having words the other lacks) nor a negation. The
 *    existing card keeps its content and id, gains the new tags, and its `updatedAt` moves.
 * 3. **Supersession** — otherwise the draft becomes a new card, and it supersedes every current
 *    card that says the same thing about the same subject with one detail changed. Only types that
 *    carry a current state supersede (`SUPERSEDING_CARD_TYPES`: preference, decision,
 *    constraint), and only a card of the same type: facts, todos, goals, code and above all
 *    episodic records such as conversation turns are never superseded, since "I moved to Berlin"
 *    and a later "I moved to Paris" are both history. Same subject, one detail changed means: the
 *    content-token sequences differ in one short span (at most 3 tokens on each side) that is
 *    either replaced ("prefer Python for scripts" → "prefer Rust for scripts") or negated ("like"
 *    → "do not like"); and the shared rest holds at least 2 tokens and half of each card's tokens.
 *    The old card gets `supersededBy` and stays stored (listed only with `includeSuperseded`).
 *
 * Limits: this is word overlap, not understanding. Two compatible statements of the same shape
 * ("likes Python" / "likes hiking") are read as a change of mind, and a change phrased
 * differently ("switched from Python to Rust") is not recognised, so both cards stay current.
 * Superseded cards are never deleted, so a wrong call loses nothing. Only current (not
 * superseded) cards are compared.
 *
 * Cost: candidates are found through look-ups (`createCardIndex`), never by comparing a draft
 * with every card, so a store that keeps its index pays per draft about the same at 100 cards as
 * at 100,000. `mergeCards` itself builds the index of `existing` on each call: linear, analysing
 * every card again (analyses are kept per index, not across calls); keep a `createCardIndex` to
 * merge repeatedly.
 */
import type { MemoryCard, MemoryCardDraft } from '../contracts/index.js';
import { type CardMergeOptions, createCardIndex, type MergeOutcome } from './card-index.js';

export {
  contentTokens,
  MAX_CARD_CONTENT_LENGTH,
  NEAR_DUPLICATE_THRESHOLD,
  normalizeCardContent,
  SUPERSEDING_CARD_TYPES,
} from './card-analysis.js';
export type { MergeOutcome } from './card-index.js';
export { type ValidDraft, validateDrafts } from './validate-drafts.js';

export type MergeCardsOptions = CardMergeOptions;

export interface MergeCardsResult {
  /** Every card of the scope afterwards (superseded ones included), in insertion order. */
  cards: MemoryCard[];
  /** For each draft, its card as it ends up: the existing card for duplicates. */
  results: MemoryCard[];
  outcomes: MergeOutcome[];
  /** Whether anything must be written. */
  changed: boolean;
}

/**
 * Merges drafts into `existing` one after another (a later draft sees the earlier ones), by the
 * rules in this module's comment. Returns new arrays and new card objects for what changed (the
 * same objects for unchanged cards); `existing` is never mutated. Drafts are validated with
 * `validateDrafts`.
 */
export function mergeCards(
  existing: readonly MemoryCard[],
  drafts: readonly MemoryCardDraft[],
  options: MergeCardsOptions,
): MergeCardsResult {
  const index = createCardIndex(existing);
  const { results, outcomes, changed } = index.merge(drafts, options);
  return { cards: index.cards(), results, outcomes, changed };
}

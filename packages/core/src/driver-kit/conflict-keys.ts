/**
 * Which concurrent writes can change a merge: the keys that let a shared store (PostgreSQL, Redis)
 * commit an `add` merged against a slightly older view of the scope, as long as nothing written
 * since could have changed its outcome.
 *
 * A merge (`CardIndex.merge`) compares a draft only with the cards its look-ups find: the card of
 * the same normalized content, near duplicates (the draft's token set without up to `m` tokens, or
 * a set that is the draft's with up to `m` tokens more) and the cards it supersedes (same type,
 * one changed span). Each stored card is written with the keys those look-ups would find it by
 * (`cardConflictKeys`), and a merge names the keys it looked up (`draftConflictKeys`). When no
 * card written after the merge's revision carries one of those keys, merging again against the
 * newer scope would give the same result, so the store commits; otherwise it catches up and merges
 * again. The keys are hashes: a collision only costs a merge again, never a wrong merge.
 *
 * - exact: `E` + normalized content, on both sides.
 * - near duplicate, card ⊆ draft: the card writes `F` + its token set; the draft looks up `F` + its
 *   set and each of its subsets without 1 to `m` tokens (the subsets card-index looks up).
 * - near duplicate, draft ⊆ card: the card writes `S` + each of its subsets; the draft looks up
 *   `S` + its own set.
 * - long token sets, whose subsets card-index does not enumerate either: such a card writes `T` +
 *   each token (so does every card that could be a near duplicate of one), and a long draft looks up
 *   `T` + `m + 1` of its tokens, one of which any near duplicate shares; a draft that could be a
 *   subset of a long card looks up `T` + one token.
 * - supersession: `P` + each of the card's span keys (card-index's `shapeKeys`), on both sides.
 *
 * A merge's revision may be old: a writer's cache catches up lazily (`synced-cards.ts`), holding
 * the scope at its revision plus its own commits since, and its own keys written since count as
 * conflicts too (a conflict only costs a catch-up).
 *
 * Pruning: a store keeps, per key, the last revision that wrote it, and drops all of a scope's
 * keys when cards are removed from it. That is exact: a removal moves the scope's reset revision,
 * so a commit merged at an older revision conflicts whole (its cache reads the scope again),
 * while one merged at the removal's revision or later only compares keys written after it. Keys
 * of superseded cards stay until then: a superseded card no longer de-duplicates anything
 * (merges compare only current cards), but a writer whose cache is older than the supersession
 * still holds the card as current, and its key is how that writer learns the card changed.
 */
import { hash } from 'node:crypto';
import type { MemoryCard, MemoryCardDraft, MemoryCardType } from '../contracts/index.js';
import { analyzeCardContent, type CardAnalysis } from '../memory/card-analysis.js';
import { shapeKeys, subsetKeys, tokenSetKey } from '../memory/card-lookup-keys.js';
import {
  NEAR_DUPLICATE_THRESHOLD,
  SUPERSEDING_CARD_TYPES,
  validateDrafts,
} from '../memory/index.js';

/** Tokens a near duplicate of a set of `size` tokens may lack (as card-index computes it). */
function missingTokens(size: number): number {
  // A small epsilon: 0.85 · 20 must count as 17, not 17.000000000000004.
  return size - Math.ceil(NEAR_DUPLICATE_THRESHOLD * size - 1e-9);
}

/** Whether card-index gives up enumerating the subsets of a set of `size` tokens. */
function isLong(size: number): boolean {
  const tokens = Array.from({ length: size }, (_, index) => String(index));
  return subsetKeys(tokens, missingTokens(size)) === undefined;
}

/** The fewest tokens of a set whose subsets card-index does not enumerate. */
const SHORTEST_LONG = (() => {
  let size = 1;
  while (!isLong(size)) size++;
  return size;
})();

/** Sets at least this large can be a near duplicate of a long set: they write their tokens. */
const TOKENS_FROM = Math.ceil(NEAR_DUPLICATE_THRESHOLD * SHORTEST_LONG - 1e-9);

/**
 * A short, fixed-length key: hashes keep what the store writes small whatever the content. The
 * one-shot `hash` gives `createHash`'s digest at a third of its cost (no Hash object per key).
 */
function hashed(key: string): string {
  return hash('sha1', key, 'base64url').slice(0, 16);
}

function shapes(type: MemoryCardType, analysis: CardAnalysis): string[] {
  if (!SUPERSEDING_CARD_TYPES.has(type)) return [];
  return shapeKeys(type, analysis.tokens).map((key) => `P${key}`);
}

/** Analyses card content; a caller adding many cards passes one that remembers its answers. */
export type AnalyzeContent = (content: string) => CardAnalysis;

/**
 * The keys a stored card is found by (write them with every version of the card written).
 * `analyze` analyses its content (`analyzeCardContent` unless given).
 */
export function cardConflictKeys(
  card: MemoryCard,
  analyze: AnalyzeContent = analyzeCardContent,
): string[] {
  const analysis = analyze(card.content);
  const sorted = [...analysis.set].sort();
  const keys = [`E${analysis.normalized}`, `F${tokenSetKey(sorted)}`];
  const subsets = subsetKeys(sorted, missingTokens(sorted.length));
  for (const subset of subsets ?? []) keys.push(`S${subset}`);
  if (sorted.length >= TOKENS_FROM) for (const token of sorted) keys.push(`T${token}`);
  keys.push(...shapes(card.type, analysis));
  return [...new Set(keys.map(hashed))];
}

/** The keys a merge of `drafts` looks cards up by: a card written since with one may change it. */
export function draftConflictKeys(
  drafts: readonly MemoryCardDraft[],
  analyze: AnalyzeContent = analyzeCardContent,
): string[] {
  const keys = new Set<string>();
  for (const draft of validateDrafts(drafts)) {
    const analysis = analyze(draft.content);
    const sorted = [...analysis.set].sort();
    const own = tokenSetKey(sorted);
    const missing = missingTokens(sorted.length);
    const found = [`E${analysis.normalized}`, `F${own}`, `S${own}`];
    const subsets = subsetKeys(sorted, missing);
    if (subsets) {
      for (const subset of subsets) found.push(`F${subset}`);
      if (sorted.length >= TOKENS_FROM) found.push(`T${sorted[0]}`);
    } else {
      for (const token of sorted.slice(0, missing + 1)) found.push(`T${token}`);
    }
    found.push(...shapes(draft.type, analysis));
    for (const key of found) keys.add(hashed(key));
  }
  return [...keys];
}

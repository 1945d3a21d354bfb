/**
 * How two card contents are compared: normalization, content tokens, and the near-duplicate and
 * supersession tests of `mergeCards` (see its module comment for the rules and their limits).
 * Pure functions of the contents; the look-ups that find which cards to compare live in
 * `card-index.ts`.
 */
import type { MemoryCardType } from '../contracts/index.js';
import {
  CJK_CHARACTER,
  cjkNgrams,
  ENGLISH_NEGATIONS,
  ENGLISH_STATEMENT_WORDS,
  ENGLISH_STOP_WORDS,
  normalizeText,
  stemEnglishPorter,
} from '../text/index.js';

/** Longest card content accepted, in characters. Cards are meant to be one sentence. */
export const MAX_CARD_CONTENT_LENGTH = 10_000;

/** Jaccard similarity at or above which two cards are near duplicates. */
export const NEAR_DUPLICATE_THRESHOLD = 0.85;

/**
 * Card types that state a current state of things, which a newer card of the same type and
 * subject can replace: a decision, a preference, a constraint. Every other type is a record
 * (a fact, a conversation turn, a todo, a goal, code) that stays true of its moment, so a newer
 * card never supersedes it: two transcript turns "I moved to Berlin" and "I moved to Paris" are
 * both history, not a change of mind.
 */
export const SUPERSEDING_CARD_TYPES: ReadonlySet<MemoryCardType> = new Set<MemoryCardType>([
  'preference',
  'decision',
  'constraint',
]);

/** Longest changed span, in tokens on each side, for a supersession. */
export const MAX_CHANGED_TOKENS = 3;
/** Fewest tokens the two cards of a supersession share around the changed span. */
export const MIN_SHARED_TOKENS = 2;
/** Smallest share of each card's tokens the two cards of a supersession share. */
export const MIN_SHARED_SHARE = 0.5;

// Sentence punctuation only: `#`, `+`, `@`, `$`, `%`, `/`, `=` and `_` carry meaning ("C#", "C++").
const PUNCTUATION = /[.,;:!?'"`()[\]{}<>…\-–—~·、。，；：！？「」『』（）【】《》〈〉“”‘’]+/gu;
// Words run to the next space, not the next non-letter as in search: after `PUNCTUATION` is
// gone, what is left of a word is part of it ("c#", "c++", "eu-west" → "eu west").
const TOKEN = new RegExp(`(${CJK_CHARACTER}+)|((?:(?!${CJK_CHARACTER})\\S)+)`, 'gu');
const CJK_NEGATION = /[不没沒别別无無非未]/u;

/**
 * The stop words of search, except those that change what a statement says: two cards that
 * differ by "not", "before" or "more" are not duplicates.
 */
const STOP_WORDS: ReadonlySet<string> = new Set(
  [...ENGLISH_STOP_WORDS].filter((word) => !ENGLISH_STATEMENT_WORDS.has(word)),
);

/**
 * The form two contents are compared in: NFKC (full-width → ASCII), lower case, `n't` → ` not`,
 * sentence punctuation → space, whitespace collapsed.
 */
export function normalizeCardContent(content: string): string {
  return normalizeText(content)
    .replace(/n['’]t\b/gu, ' not')
    .replace(PUNCTUATION, ' ')
    .replace(/\s+/gu, ' ')
    .trim();
}

/**
 * Content tokens in sentence order: words without stop words, Porter-stemmed as in search, CJK
 * runs as character bigrams.
 */
export function contentTokens(normalized: string): string[] {
  const tokens: string[] = [];
  for (const match of normalized.matchAll(TOKEN)) {
    const [, cjk, word] = match;
    if (cjk) {
      for (const bigram of cjkNgrams(cjk, { min: 2, max: 2 })) tokens.push(bigram);
    } else if (word && !STOP_WORDS.has(word)) {
      tokens.push(stemEnglishPorter(word));
    }
  }
  return tokens;
}

function isNegation(token: string): boolean {
  return ENGLISH_NEGATIONS.has(token) || CJK_NEGATION.test(token);
}

/** What the comparisons need of one content, computed once per card. */
export interface CardAnalysis {
  /** The content it was computed from. */
  content: string;
  normalized: string;
  /** Content tokens in order (all words for a sentence of stop words only). */
  tokens: string[];
  set: Set<string>;
}

export function analyzeCardContent(content: string): CardAnalysis {
  const normalized = normalizeCardContent(content);
  const tokens = contentTokens(normalized);
  // Sentences of stop words only ("it is what it is") fall back to all their words.
  const effective = tokens.length > 0 ? tokens : normalized.split(' ').filter(Boolean);
  return { content, normalized, tokens: effective, set: new Set(effective) };
}

export function jaccard(left: Set<string>, right: Set<string>): number {
  if (left.size === 0 && right.size === 0) return 1;
  let shared = 0;
  for (const token of left) if (right.has(token)) shared++;
  return shared / (left.size + right.size - shared);
}

export function isNearDuplicate(left: CardAnalysis, right: CardAnalysis): boolean {
  // Jaccard can never reach the threshold when one set is much larger than the other.
  const smaller = Math.min(left.set.size, right.set.size);
  const larger = Math.max(left.set.size, right.set.size);
  if (smaller < NEAR_DUPLICATE_THRESHOLD * larger) return false;
  if (jaccard(left.set, right.set) < NEAR_DUPLICATE_THRESHOLD) return false;
  const onlyLeft = [...left.set].filter((token) => !right.set.has(token));
  const onlyRight = [...right.set].filter((token) => !left.set.has(token));
  if ([...onlyLeft, ...onlyRight].some(isNegation)) return false;
  return onlyLeft.length === 0 || onlyRight.length === 0;
}

/** Whether `newer` states a changed detail of what `older` says (see `mergeCards`). */
export function supersedes(older: CardAnalysis, newer: CardAnalysis): boolean {
  const a = older.tokens;
  const b = newer.tokens;
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (
    suffix < a.length - prefix &&
    suffix < b.length - prefix &&
    a[a.length - 1 - suffix] === b[b.length - 1 - suffix]
  ) {
    suffix++;
  }
  const changedOld = a.slice(prefix, a.length - suffix);
  const changedNew = b.slice(prefix, b.length - suffix);
  if (changedOld.length > MAX_CHANGED_TOKENS || changedNew.length > MAX_CHANGED_TOKENS)
    return false;
  const replaced = changedOld.length > 0 && changedNew.length > 0;
  const negated = [...changedOld, ...changedNew].some(isNegation);
  if (!replaced && !negated) return false;
  const shared = prefix + suffix;
  return (
    shared >= MIN_SHARED_TOKENS &&
    shared >= MIN_SHARED_SHARE * a.length &&
    shared >= MIN_SHARED_SHARE * b.length
  );
}

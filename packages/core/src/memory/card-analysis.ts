/**
 * How two card contents are compared: normalization, content tokens, and the near-duplicate and
 * supersession tests of `mergeCards` (see its module comment for the rules and their limits).
 * Pure functions of the contents; the look-ups that find which cards to compare live in
 * `card-index.ts`.
 */
import type { MemoryCardType } from '../contracts/index.js';

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
const CJK = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}';
const TOKEN = new RegExp(`([${CJK}]+)|([^\\s${CJK}]+)`, 'gu');
const CJK_NEGATION = /[不没沒别別无無非未]/u;

const NEGATIONS = new Set(['not', 'no', 'never', 'none', 'nor', 'without', 'cannot']);

const STOP_WORDS = new Set(
  (
    'a an the and or but of to in on at for with by from as into onto about than then ' +
    'is are was were be been being am it its this that these those there here ' +
    'i me my mine we us our ours you your yours he him his she her hers they them their theirs ' +
    's do does did done will would shall should can could may might must have has had ' +
    'so very really actually also still now currently just only always usually please'
  ).split(' '),
);

/**
 * The form two contents are compared in: NFKC (full-width → ASCII), lower case, `n't` → ` not`,
 * sentence punctuation → space, whitespace collapsed.
 */
export function normalizeCardContent(content: string): string {
  return content
    .normalize('NFKC')
    .toLowerCase()
    .replace(/n['’]t\b/gu, ' not')
    .replace(PUNCTUATION, ' ')
    .replace(/\s+/gu, ' ')
    .trim();
}

/** A light plural stemmer ("copies" → "copy", "matches" → "match", "scripts" → "script"). */
function stem(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 4 && /(?:ch|sh|x|ss|z)es$/u.test(word)) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !/(?:ss|us|is)$/u.test(word)) {
    return word.slice(0, -1);
  }
  return word;
}

/** Content tokens in sentence order: words without stop words, CJK runs as character bigrams. */
export function contentTokens(normalized: string): string[] {
  const tokens: string[] = [];
  for (const match of normalized.matchAll(TOKEN)) {
    const [, cjk, word] = match;
    if (cjk) {
      const characters = [...cjk];
      if (characters.length === 1) tokens.push(cjk);
      for (let index = 0; index + 1 < characters.length; index++) {
        tokens.push(characters[index]! + characters[index + 1]!);
      }
    } else if (word && !STOP_WORDS.has(word)) {
      tokens.push(stem(word));
    }
  }
  return tokens;
}

function isNegation(token: string): boolean {
  return NEGATIONS.has(token) || CJK_NEGATION.test(token);
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

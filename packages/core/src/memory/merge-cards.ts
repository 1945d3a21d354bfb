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
 *    card that says the same thing about the same subject with one detail changed: same type among
 *    preference, decision, constraint and fact; the content-token sequences differ in one short
 *    span (at most 3 tokens on each side) that is either replaced ("prefer Python for scripts" →
 *    "prefer Rust for scripts") or negated ("like" → "do not like"); and the shared rest holds at
 *    least 2 tokens and half of each card's tokens. The old card gets `supersededBy` and stays
 *    stored (listed only with `includeSuperseded`).
 *
 * Limits: this is word overlap, not understanding. Two compatible statements of the same shape
 * ("likes Python" / "likes hiking", "lives in Berlin" / "works in Berlin") are read as a change of
 * mind, and a change phrased differently ("switched from Python to Rust") is not recognised, so
 * both cards stay current. Superseded cards are never deleted, so a wrong call loses nothing.
 * Only current (not superseded) cards are compared.
 */
import type { MemoryCard, MemoryCardDraft, MemoryCardType, Scope } from '../contracts/index.js';
import { MEMORY_CARD_TYPES } from '../contracts/index.js';
import { InvalidArgumentError } from '../errors/index.js';

/** Longest card content accepted, in characters. Cards are meant to be one sentence. */
export const MAX_CARD_CONTENT_LENGTH = 10_000;

/** Jaccard similarity at or above which two cards are near duplicates. */
export const NEAR_DUPLICATE_THRESHOLD = 0.85;

const SUPERSEDING_TYPES = new Set<MemoryCardType>(['preference', 'decision', 'constraint', 'fact']);
const MAX_CHANGED_TOKENS = 3;
const MIN_SHARED_TOKENS = 2;
const MIN_SHARED_SHARE = 0.5;

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

interface Analysis {
  normalized: string;
  tokens: string[];
  set: Set<string>;
}

// Analyses depend on the content alone, so they are memoized across calls: a store that adds one
// card at a time then tokenizes each existing card once, not on every add.
const analysisCache = new Map<string, Analysis>();
const ANALYSIS_CACHE_LIMIT = 50_000;

function analyze(content: string): Analysis {
  const cached = analysisCache.get(content);
  if (cached) return cached;
  const normalized = normalizeCardContent(content);
  const tokens = contentTokens(normalized);
  // Sentences of stop words only ("it is what it is") fall back to all their words.
  const effective = tokens.length > 0 ? tokens : normalized.split(' ').filter(Boolean);
  const analysis = { normalized, tokens: effective, set: new Set(effective) };
  if (analysisCache.size >= ANALYSIS_CACHE_LIMIT) analysisCache.clear();
  analysisCache.set(content, analysis);
  return analysis;
}

function jaccard(left: Set<string>, right: Set<string>): number {
  if (left.size === 0 && right.size === 0) return 1;
  let shared = 0;
  for (const token of left) if (right.has(token)) shared++;
  return shared / (left.size + right.size - shared);
}

function isNearDuplicate(left: Analysis, right: Analysis): boolean {
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

/** Whether `newer` states a changed detail of what `older` says (see the module comment). */
function supersedes(older: Analysis, newer: Analysis): boolean {
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

/** A draft checked and cleaned: trimmed content, a known type, trimmed unique tags. */
export interface ValidDraft {
  content: string;
  type: MemoryCardType;
  tags: string[];
  source?: string;
}

function mergeTags(first: readonly string[], second: readonly string[]): string[] {
  return [...new Set([...first, ...second])];
}

/** Checks drafts and throws `InvalidArgumentError` naming the first bad field. */
export function validateDrafts(drafts: readonly MemoryCardDraft[]): ValidDraft[] {
  if (!Array.isArray(drafts)) {
    throw new InvalidArgumentError({
      message: `add expects an array of card drafts; got ${typeof drafts}.`,
      argument: 'drafts',
    });
  }
  return drafts.map((draft, index) => {
    const invalid = (field: string, reason: string) =>
      new InvalidArgumentError({
        message: `drafts[${index}].${field} ${reason}.`,
        argument: `drafts[${index}].${field}`,
      });
    if (draft === null || typeof draft !== 'object') throw invalid('content', 'is missing');
    const { content, type = 'fact', tags = [], source } = draft;
    if (typeof content !== 'string' || content.trim() === '') {
      throw invalid('content', 'must be a non-empty string');
    }
    if (content.length > MAX_CARD_CONTENT_LENGTH) {
      throw invalid('content', `must be at most ${MAX_CARD_CONTENT_LENGTH} characters`);
    }
    if (!MEMORY_CARD_TYPES.includes(type)) {
      throw invalid(
        'type',
        `must be one of ${MEMORY_CARD_TYPES.join(', ')}; got ${JSON.stringify(type)}`,
      );
    }
    if (!Array.isArray(tags) || tags.some((tag) => typeof tag !== 'string')) {
      throw invalid('tags', 'must be an array of strings');
    }
    if (source !== undefined && typeof source !== 'string')
      throw invalid('source', 'must be a string');
    const valid: ValidDraft = {
      content: content.trim(),
      type,
      tags: mergeTags(
        tags.map((tag) => tag.trim()).filter((tag) => tag !== ''),
        [],
      ),
    };
    if (source !== undefined) valid.source = source;
    return valid;
  });
}

export interface MergeCardsOptions {
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
 * rules in this module's comment. Returns new arrays and new card objects for what changed;
 * `existing` is never mutated. Drafts are validated with `validateDrafts`.
 */
export function mergeCards(
  existing: readonly MemoryCard[],
  drafts: readonly MemoryCardDraft[],
  { scope, now, generateId }: MergeCardsOptions,
): MergeCardsResult {
  const valid = validateDrafts(drafts);
  const cards = [...existing];
  // Positions of the current (not superseded) cards, and their normalized contents.
  const current = new Set<number>();
  const exact = new Map<string, number>();
  cards.forEach((card, position) => {
    if (card.supersededBy !== undefined) return;
    current.add(position);
    exact.set(analyze(card.content).normalized, position);
  });
  const outcomes: MergeOutcome[] = [];
  let changed = false;

  for (const draft of valid) {
    const draftAnalysis = analyze(draft.content);

    const duplicate = exact.get(draftAnalysis.normalized);
    if (duplicate !== undefined) {
      outcomes.push({ kind: 'duplicate', cardId: cards[duplicate]!.id });
      continue;
    }

    let best: { position: number; score: number } | undefined;
    for (const position of current) {
      const analysis = analyze(cards[position]!.content);
      if (!isNearDuplicate(analysis, draftAnalysis)) continue;
      const score = jaccard(analysis.set, draftAnalysis.set);
      if (!best || score > best.score) best = { position, score };
    }
    if (best) {
      const near = cards[best.position]!;
      cards[best.position] = { ...near, tags: mergeTags(near.tags, draft.tags), updatedAt: now };
      outcomes.push({ kind: 'near-duplicate', cardId: near.id });
      changed = true;
      continue;
    }

    const card: MemoryCard = {
      id: generateId(),
      content: draft.content,
      type: draft.type,
      tags: draft.tags,
      createdAt: now,
      updatedAt: now,
      ...(draft.source === undefined ? {} : { source: draft.source }),
      scope: { ...scope },
    };
    const superseded: string[] = [];
    if (SUPERSEDING_TYPES.has(draft.type)) {
      for (const position of current) {
        const older = cards[position]!;
        if (older.type !== draft.type || !supersedes(analyze(older.content), draftAnalysis))
          continue;
        cards[position] = { ...older, supersededBy: card.id, updatedAt: now };
        superseded.push(older.id);
        current.delete(position);
        const normalized = analyze(older.content).normalized;
        if (exact.get(normalized) === position) exact.delete(normalized);
      }
    }
    current.add(cards.length);
    exact.set(draftAnalysis.normalized, cards.length);
    cards.push(card);
    outcomes.push({ kind: 'added', cardId: card.id, superseded });
    changed = true;
  }

  const byId = new Map(cards.map((card) => [card.id, card]));
  return {
    cards,
    results: outcomes.map((outcome) => byId.get(outcome.cardId)!),
    outcomes,
    changed,
  };
}

/**
 * `sequenceContext`: for cards that are consecutive parts of one sequence (the turns of a
 * transcript), each card also scores through the cards before and after it. The sequence is the
 * scope's cards of the sequence types (`episode` by default) ordered by `createdAt`, then by the
 * order the store listed them in; cards of other types are not in it, so self-contained cards
 * neither pass nor receive anything. It is kept in the scope's state and rebuilt only after the
 * cards change.
 */
import {
  type Entry,
  entryTime,
  entryType,
  forEachTypeAndTime,
  type ScopeState,
} from './scope-state.js';
import type { SearchSettings, SequenceContextSettings } from './search-settings.js';

/**
 * The scope's cards of `types` in sequence order: `createdAt`, then the order the store listed
 * them in. `types` is fixed for a search, so the cached sequence is always of the same types.
 */
export function sequenceOf(
  state: ScopeState,
  types: SequenceContextSettings['types'],
): NonNullable<ScopeState['sequence']> {
  if (!state.sequence) {
    const listed: Array<{ id: string; time: number; position: number }> = [];
    // Type and time come without parsing the cards of a saved index (every card is listed).
    forEachTypeAndTime(state.entries, (id, type, time) => {
      if (types.has(type)) listed.push({ id, time, position: listed.length });
    });
    listed.sort((left, right) => left.time - right.time || left.position - right.position);
    const ids = listed.map((item) => item.id);
    state.sequence = { ids, positions: new Map(ids.map((id, position) => [id, position])) };
  }
  return state.sequence;
}

/**
 * Keeps the scope's sequence after `entry` was added, so a scope that grows in order is not
 * re-sorted on each search: a card outside the sequence types changes nothing, a record at or
 * after the last one is appended (a transcript added as it happens), anything else has the
 * sequence rebuilt at its next use. `types` is undefined when the search has no sequence.
 */
export function noteAddedEntry(
  state: ScopeState,
  entry: Entry,
  types: SequenceContextSettings['types'] | undefined,
): void {
  const sequence = state.sequence;
  if (!sequence || !types?.has(entryType(entry))) return;
  const last = sequence.ids[sequence.ids.length - 1];
  const lastEntry = last === undefined ? undefined : state.entries.get(last);
  if (last !== undefined && (!lastEntry || entryTime(entry) < entryTime(lastEntry))) {
    state.sequence = undefined;
    return;
  }
  sequence.positions.set(entry.card.id, sequence.ids.length);
  sequence.ids.push(entry.card.id);
}

/** Drops the scope's sequence when the card `id` that left the scope was part of it. */
export function noteRemovedId(state: ScopeState, id: string): void {
  if (state.sequence?.positions.has(id)) state.sequence = undefined;
}

/**
 * How many candidates each side contributes in this scope: more when it holds a sequence, where a
 * card can rank through its neighbours; in a scope of self-contained cards, the usual pool.
 */
export function candidatePool(state: ScopeState, settings: SearchSettings): number {
  const { context, candidates, sequenceCandidates } = settings;
  return context && sequenceOf(state, context.types).ids.length > 0
    ? sequenceCandidates
    : candidates;
}

/** A record that asks something: the record after it is most likely the answer. */
const ASKS = /[?？]/u;

/**
 * Adds to each card of the sequence `weight ^ d` of the score of the card `d` places before it
 * and `backwardWeight ^ d` of the score of the card `d` places after it (d up to `window`),
 * skipping cards the query's filters exclude; cards outside the sequence pass nothing on. A card
 * that asks a question passes `questionWeight` instead of `weight` to the card right after it
 * (and on from there by `weight`). Returns the added parts per card; the scores themselves are
 * not changed. Linear in the scored cards times `window`.
 */
export function passOnContext(
  state: ScopeState,
  scores: ReadonlyMap<string, number>,
  accepts: (id: string) => boolean,
  { weight, window, backwardWeight, questionWeight, types }: SequenceContextSettings,
): Map<string, number> {
  const { ids, positions } = sequenceOf(state, types);
  const passed = new Map<string, number>();
  const passOn = (
    position: number,
    score: number,
    step: 1 | -1,
    stepWeight: number,
    firstWeight: number,
  ) => {
    let share = score;
    for (let distance = 1; distance <= window; distance++) {
      share *= distance === 1 ? firstWeight : stepWeight;
      const neighbour = ids[position + step * distance];
      if (neighbour === undefined || !(share > 0)) break;
      if (accepts(neighbour)) passed.set(neighbour, (passed.get(neighbour) ?? 0) + share);
    }
  };
  for (const [id, score] of scores) {
    const position = positions.get(id);
    if (position === undefined || !(score > 0)) continue;
    const asks = questionWeight !== weight && ASKS.test(state.entries.get(id)?.text ?? '');
    passOn(position, score, 1, weight, asks ? questionWeight : weight);
    passOn(position, score, -1, backwardWeight, backwardWeight);
  }
  return passed;
}

/** A speaker label at the start of a record: "Ana: …", "Dr. Lee: …" (up to 4 words). */
const SPEAKER_LABEL = /^\s*([^:\n]{1,40}):\s/u;
const WORD = /[\p{L}\p{N}]+/gu;

function wordsOf(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

/** The label's words when `text` starts with a speaker label of up to 4 words, else undefined. */
function labelWords(text: string): string[] | undefined {
  const label = SPEAKER_LABEL.exec(text)?.[1];
  if (label === undefined) return undefined;
  const words = wordsOf(label);
  return words.length > 0 && words.length <= 4 ? words : undefined;
}

/** Words that may stand between two names of one subject ("Jon and Gina", "Jon's and Gina's"). */
const JOINING_WORDS = new Set(['and', 's']);

/**
 * Whether a record of the sequence was said by the speaker a query is about. Among the speaker
 * labels of `texts` ("Samantha: …") whose every word is a word of the query, that is the one the
 * query names first, with any named right after it joined by "and": "What did Nate make for
 * Joanna?" is about Nate, "How do Jon and Gina relax?" about both. A question names its subject
 * first; a person named later is usually who it was done for or with, and boosting both left the
 * boost nothing to tell apart. Without a name in the query, nothing matches. Linear in `texts`.
 */
export function speakerMatcher(query: string, texts: Iterable<string>): (text: string) => boolean {
  const queryWords = wordsOf(query);
  const firstIndex = new Map<string, number>();
  for (const [position, word] of queryWords.entries()) {
    if (!firstIndex.has(word)) firstIndex.set(word, position);
  }
  // Each named label once: where its words start and end in the query.
  const named = new Map<string, { start: number; end: number }>();
  for (const text of texts) {
    const words = labelWords(text);
    if (!words) continue;
    const key = words.join(' ');
    if (named.has(key) || !words.every((word) => firstIndex.has(word))) continue;
    const positions = words.map((word) => firstIndex.get(word)!);
    named.set(key, { start: Math.min(...positions), end: Math.max(...positions) });
  }
  const order = [...named].sort(
    ([leftKey, left], [rightKey, right]) =>
      left.start - right.start || (leftKey < rightKey ? -1 : leftKey > rightKey ? 1 : 0),
  );
  const subject = new Set<string>();
  let end = -1;
  for (const [key, place] of order) {
    if (subject.size > 0) {
      const between = queryWords.slice(end + 1, place.start);
      if (!between.includes('and') || !between.every((word) => JOINING_WORDS.has(word))) break;
    }
    subject.add(key);
    end = Math.max(end, place.end);
  }
  if (subject.size === 0) return () => false;
  return (text) => {
    const words = labelWords(text);
    return words !== undefined && subject.has(words.join(' '));
  };
}

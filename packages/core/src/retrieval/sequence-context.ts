/**
 * `sequenceContext`: for cards that are consecutive parts of one sequence (the turns of a
 * transcript), each card also scores through the cards before and after it. The sequence is the scope's
 * cards ordered by `createdAt`, then by the order the store listed them in; it is kept in the
 * scope's state and rebuilt only after the cards change.
 */
import type { ScopeState } from './scope-state.js';
import type { SequenceContextSettings } from './search-settings.js';

/** The scope's cards in sequence order: `createdAt`, then the order the store listed them in. */
export function sequenceOf(state: ScopeState): NonNullable<ScopeState['sequence']> {
  if (!state.sequence) {
    const listed = [...state.entries.values()].map((entry, position) => {
      const time = Date.parse(entry.card.createdAt);
      return { id: entry.card.id, time: Number.isFinite(time) ? time : 0, position };
    });
    listed.sort((left, right) => left.time - right.time || left.position - right.position);
    const ids = listed.map((item) => item.id);
    state.sequence = { ids, positions: new Map(ids.map((id, position) => [id, position])) };
  }
  return state.sequence;
}

/**
 * Adds to each card `weight ^ d` of the score of the card `d` places before it and
 * `backwardWeight ^ d` of the score of the card `d` places after it (d up to `window`), skipping
 * cards the query's filters exclude. Returns the added parts per card; the scores themselves are
 * not changed. Linear in the scored cards times `window`.
 */
export function passOnContext(
  state: ScopeState,
  scores: ReadonlyMap<string, number>,
  accepts: (id: string) => boolean,
  { weight, window, backwardWeight }: SequenceContextSettings,
): Map<string, number> {
  const { ids, positions } = sequenceOf(state);
  const passed = new Map<string, number>();
  const passOn = (position: number, score: number, step: 1 | -1, stepWeight: number) => {
    let share = score;
    for (let distance = 1; distance <= window; distance++) {
      share *= stepWeight;
      const neighbour = ids[position + step * distance];
      if (neighbour === undefined || !(share > 0)) break;
      if (accepts(neighbour)) passed.set(neighbour, (passed.get(neighbour) ?? 0) + share);
    }
  };
  for (const [id, score] of scores) {
    const position = positions.get(id);
    if (position === undefined || !(score > 0)) continue;
    passOn(position, score, 1, weight);
    passOn(position, score, -1, backwardWeight);
  }
  return passed;
}

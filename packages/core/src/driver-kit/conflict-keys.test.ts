import { describe, expect, it } from 'vitest';
import type { MemoryCardDraft, MemoryCardType } from '../contracts/index.js';
import { createCardIndex } from '../memory/index.js';
import { cardConflictKeys, draftConflictKeys } from './conflict-keys.js';

const WORDS = 'python rust go java scripts servers backups nightly weekly deploy tests docs'.split(
  ' ',
);
const TYPES: MemoryCardType[] = ['preference', 'decision', 'todo', 'fact'];

/** A seeded generator, so that a failure is reproducible. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
}

const options = { scope: {}, now: '2026-01-01T00:00:00.000Z', generateId: () => 'new' };

/** Whether merging `draft` into a scope holding only the card of `stored` involves that card. */
function interacts(stored: MemoryCardDraft, draft: MemoryCardDraft): boolean {
  const index = createCardIndex();
  index.merge([stored], { ...options, generateId: () => 'stored' });
  const { outcomes } = index.merge([draft], options);
  const outcome = outcomes[0]!;
  return outcome.kind !== 'added' || outcome.superseded.length > 0;
}

function overlaps(stored: MemoryCardDraft, draft: MemoryCardDraft): boolean {
  const index = createCardIndex();
  const [card] = index.merge([stored], { ...options, generateId: () => 'stored' }).results;
  const written = new Set(cardConflictKeys(card!));
  return draftConflictKeys([draft]).some((key) => written.has(key));
}

describe('conflict keys', () => {
  it('a draft looks up a key of every stored card it duplicates or supersedes', () => {
    const next = random(14);
    let interacting = 0;
    let falseAlarms = 0;
    const pairs = 1_500;
    for (let pair = 0; pair < pairs; pair++) {
      // Lengths up to 26 words: past the sets whose subsets card-index enumerates.
      const length = 1 + Math.floor(next() * 26);
      const words = Array.from({ length }, (_, word) =>
        next() < 0.6 ? `${WORDS[Math.floor(next() * WORDS.length)]}` : `w${pair}x${word}`,
      );
      const type = TYPES[Math.floor(next() * TYPES.length)]!;
      const changed = [...words];
      // Variants that duplicate, nearly duplicate or supersede: drop, add or replace a word.
      const edit = Math.floor(next() * 4);
      const at = Math.floor(next() * changed.length);
      if (edit === 0) changed.splice(at, 1);
      else if (edit === 1) changed.splice(at, 0, 'extra');
      else if (edit === 2) changed[at] = 'replaced';
      const stored = { content: `${words.join(' ')}.`, type };
      const draft = { content: `${changed.join(' ')}.`, type };
      const related = interacts(stored, draft);
      const found = overlaps(stored, draft);
      if (related) {
        interacting++;
        expect(found, `${stored.content} / ${draft.content}`).toBe(true);
      } else if (found) {
        falseAlarms++;
      }
    }
    // The generator must produce both kinds, and unrelated cards must rarely collide.
    expect(interacting).toBeGreaterThan(pairs / 4);
    expect(falseAlarms).toBeLessThan((pairs - interacting) / 2);
  });

  it('unrelated cards share no key', () => {
    const index = createCardIndex();
    const [card] = index.merge(
      [{ content: 'Note 1: alpha bravo charlie delta echo foxtrot golf hotel.', type: 'todo' }],
      options,
    ).results;
    const written = new Set(cardConflictKeys(card!));
    const looked = draftConflictKeys([
      { content: 'Note 2: india juliet kilo lima mike alpha bravo charlie.', type: 'todo' },
    ]);
    expect(looked.filter((key) => written.has(key))).toEqual([]);
  });
});

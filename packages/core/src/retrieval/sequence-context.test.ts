import { describe, expect, it } from 'vitest';
import type { ScopeState } from './scope-state.js';
import { passOnContext, speakerMatcher } from './sequence-context.js';

/**
 * A scope state whose sequence is already known: only `sequence` is read, and the text of the
 * cards in `texts` (whether a card asks a question).
 */
function stateWith(ids: string[], texts: Record<string, string> = {}): ScopeState {
  return {
    sequence: { ids, positions: new Map(ids.map((id, position) => [id, position])) },
    entries: new Map(ids.map((id) => [id, { text: texts[id] ?? `Card ${id}.` }])),
  } as unknown as ScopeState;
}

describe('passOnContext', () => {
  const types = new Set(['episode'] as const);
  const state = stateWith(['a', 'b', 'c', 'd']);

  it('passes weight ^ d of a score to the cards up to window places after it', () => {
    const passed = passOnContext(state, new Map([['a', 1]]), () => true, {
      weight: 0.5,
      window: 2,
      backwardWeight: 0,
      questionWeight: 0.5,
      types,
      speakerBoost: 0,
    });
    expect(passed).toEqual(
      new Map([
        ['b', 0.5],
        ['c', 0.25],
      ]),
    );
  });

  it('sums what several cards pass on, skips excluded cards without closing the gap, and ignores zero scores', () => {
    const scores = new Map([
      ['a', 1],
      ['b', 0.4],
      ['c', 0],
    ]);
    const input = new Map(scores);
    const passed = passOnContext(state, scores, (id) => id !== 'b', {
      weight: 0.5,
      window: 2,
      backwardWeight: 0,
      questionWeight: 0.5,
      types,
      speakerBoost: 0,
    });
    expect([...passed.keys()].sort()).toEqual(['c', 'd']);
    expect(passed.get('c')).toBeCloseTo(0.25 + 0.2);
    expect(passed.get('d')).toBeCloseTo(0.1);
    expect(scores).toEqual(input);
  });

  it('stops at the end of the sequence and ignores unknown ids', () => {
    const passed = passOnContext(
      state,
      new Map([
        ['d', 1],
        ['z', 1],
      ]),
      () => true,
      { weight: 1, window: 3, backwardWeight: 0, questionWeight: 1, types, speakerBoost: 0 },
    );
    expect(passed.size).toBe(0);
  });

  it('passes backwardWeight ^ d of a score to the cards before it, stopping at the start', () => {
    const passed = passOnContext(state, new Map([['b', 1]]), () => true, {
      weight: 0.5,
      window: 2,
      backwardWeight: 0.2,
      questionWeight: 0.5,
      types,
      speakerBoost: 0,
    });
    expect([...passed.keys()].sort()).toEqual(['a', 'c', 'd']);
    expect(passed.get('a')).toBeCloseTo(0.2);
    expect(passed.get('c')).toBeCloseTo(0.5);
    expect(passed.get('d')).toBeCloseTo(0.25);
  });

  it('passes questionWeight from a card that asks to the card right after it, then weight on', () => {
    const asking = stateWith(['a', 'b', 'c', 'd'], {
      a: 'Ana: How long have you lived in Porto?',
      c: 'Ana: 你住在波尔图多久了？',
    });
    const settings = {
      weight: 0.5,
      window: 2,
      backwardWeight: 0.2,
      questionWeight: 0.8,
      types,
      speakerBoost: 0,
    };
    const passed = passOnContext(asking, new Map([['a', 1]]), () => true, settings);
    expect(passed.get('b')).toBeCloseTo(0.8);
    expect(passed.get('c')).toBeCloseTo(0.8 * 0.5);
    // A full-width question mark asks too; what goes backward does not change.
    const fromChinese = passOnContext(asking, new Map([['c', 1]]), () => true, settings);
    expect(fromChinese.get('d')).toBeCloseTo(0.8);
    expect(fromChinese.get('b')).toBeCloseTo(0.2);
    // A card that does not ask passes weight.
    const plain = passOnContext(asking, new Map([['b', 1]]), () => true, settings);
    expect(plain.get('c')).toBeCloseTo(0.5);
  });
});

describe('speakerMatcher', () => {
  const records = [
    'Samantha: I painted a sunrise.',
    'Dr Lee: Thanks for the painting.',
    'Ana: I painted too.',
    'Dr Smith Lee: Hello.',
    'I painted a sunrise for Samantha.',
  ];

  it('matches a record whose every label word the query names, whatever the case', () => {
    const saidBy = speakerMatcher("What did samantha paint for the office's lake?", records);
    expect(saidBy('Samantha: I painted a sunrise.')).toBe(true);
    expect(saidBy('SAMANTHA: Another one.')).toBe(true);
    expect(saidBy('Ana: I painted too.')).toBe(false);
    const lee = speakerMatcher('What did Dr Lee say?', records);
    expect(lee('Dr Lee: Thanks for the painting.')).toBe(true);
    expect(lee('Dr Smith Lee: Hello.')).toBe(false);
    // No label, a label that is not at the start, or too long to be a name: nothing.
    expect(saidBy('I painted a sunrise for Samantha.')).toBe(false);
    expect(saidBy('Note from Samantha: hello')).toBe(false);
    const long = 'Samantha paint what did the office for: x';
    expect(speakerMatcher('samantha paint what did the office for', [long])(long)).toBe(false);
    expect(speakerMatcher('?', records)('Samantha: hi')).toBe(false);
  });

  it('matches the speaker the query names first, and those joined to them by "and"', () => {
    // Who it was done for is named later: the question is about Samantha.
    const forLee = speakerMatcher("What did Samantha paint for Dr Lee's office?", records);
    expect(forLee('Samantha: I painted a sunrise.')).toBe(true);
    expect(forLee('Dr Lee: Thanks for the painting.')).toBe(false);
    // Order in the query, not in the records.
    const aboutLee = speakerMatcher('What did Dr Lee tell Samantha?', records);
    expect(aboutLee('Dr Lee: Thanks for the painting.')).toBe(true);
    expect(aboutLee('Samantha: I painted a sunrise.')).toBe(false);
    for (const query of [
      'How do Samantha and Ana relax?',
      "What are Samantha's and Ana's hobbies?",
    ]) {
      const both = speakerMatcher(query, records);
      expect(both('Samantha: I painted a sunrise.')).toBe(true);
      expect(both('Ana: I painted too.')).toBe(true);
      expect(both('Dr Lee: Thanks for the painting.')).toBe(false);
    }
    const withAna = speakerMatcher('What did Samantha paint with Ana?', records);
    expect(withAna('Ana: I painted too.')).toBe(false);
    // A name that is no candidate's speaker does not take the subject's place.
    const nobody = speakerMatcher('What did Bo say to Samantha?', records);
    expect(nobody('Samantha: I painted a sunrise.')).toBe(true);
  });
});

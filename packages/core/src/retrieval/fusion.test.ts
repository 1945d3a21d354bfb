import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../errors/index.js';
import { maximalMarginalRelevance, reciprocalRankFusion, weightedFusion } from './index.js';

describe('reciprocalRankFusion', () => {
  it('scores 1 for an id ranked first everywhere and rewards agreement', () => {
    const scores = reciprocalRankFusion([{ ids: ['a', 'b', 'c'] }, { ids: ['a', 'c', 'd'] }], {
      k: 60,
    });
    expect(scores.get('a')).toBeCloseTo(1, 10);
    // c is in both lists, b only in one at a better rank: agreement wins.
    expect(scores.get('c')!).toBeGreaterThan(scores.get('b')!);
    expect(scores.get('b')!).toBeGreaterThan(scores.get('d')!);
  });

  it('weights lists', () => {
    const scores = reciprocalRankFusion([
      { ids: ['a'], weight: 3 },
      { ids: ['b'], weight: 1 },
    ]);
    expect(scores.get('a')).toBeCloseTo(0.75, 10);
    expect(scores.get('b')).toBeCloseTo(0.25, 10);
  });

  it('rejects negative weights and k', () => {
    expect(() => reciprocalRankFusion([{ ids: ['a'], weight: -1 }])).toThrow(InvalidArgumentError);
    expect(() => reciprocalRankFusion([{ ids: ['a'] }], { k: -1 })).toThrow(InvalidArgumentError);
  });
});

describe('weightedFusion', () => {
  it('is the weighted mean of the scores, missing counting as 0', () => {
    const scores = weightedFusion([
      {
        scores: new Map([
          ['a', 1],
          ['b', 0.5],
        ]),
        weight: 3,
      },
      { scores: new Map([['b', 1]]), weight: 1 },
    ]);
    expect(scores.get('a')).toBeCloseTo(0.75, 10);
    expect(scores.get('b')).toBeCloseTo(0.625, 10);
  });

  it('returns nothing when every weight is 0', () => {
    expect(weightedFusion([{ scores: new Map([['a', 1]]), weight: 0 }]).size).toBe(0);
  });
});

describe('maximalMarginalRelevance', () => {
  const items = [
    { id: 'python-1', relevance: 1, topic: 'python' },
    { id: 'python-2', relevance: 0.95, topic: 'python' },
    { id: 'rust', relevance: 0.8, topic: 'rust' },
  ];
  const options = {
    relevance: (item: (typeof items)[number]) => item.relevance,
    similarity: (left: (typeof items)[number], right: (typeof items)[number]) =>
      left.topic === right.topic ? 1 : 0,
  };

  it('prefers a different relevant item over a near duplicate', () => {
    const picked = maximalMarginalRelevance(items, { ...options, k: 2, lambda: 0.7 });
    expect(picked.map((item) => item.id)).toEqual(['python-1', 'rust']);
  });

  it('with lambda 1 ranks by relevance only, and never returns more than k', () => {
    const picked = maximalMarginalRelevance(items, { ...options, k: 2, lambda: 1 });
    expect(picked.map((item) => item.id)).toEqual(['python-1', 'python-2']);
    expect(maximalMarginalRelevance(items, { ...options, k: 10 })).toHaveLength(3);
  });

  it('does not modify its input', () => {
    const copy = [...items];
    maximalMarginalRelevance(items, { ...options, k: 3 });
    expect(items).toEqual(copy);
  });

  it('rejects lambda outside [0, 1]', () => {
    expect(() => maximalMarginalRelevance(items, { ...options, k: 1, lambda: 2 })).toThrow(
      InvalidArgumentError,
    );
  });
});

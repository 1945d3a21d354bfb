import { describe, expect, it } from 'vitest';
import type { Embedder, EmbedderKind } from '../contracts/index.js';
import { InvalidArgumentError } from '../errors/index.js';
import { createInMemoryMemoryStore } from '../memory/index.js';
import {
  calibrateCosines,
  createMemorySearch,
  maximalMarginalRelevance,
  reciprocalRankFusion,
  weightedFusion,
} from './index.js';

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

describe('calibrateCosines', () => {
  it('measures cosines from the candidates floor, or clips them at 0', () => {
    const cosines = new Map([
      ['a', 0.9],
      ['b', 0.4],
      ['c', 0.2],
    ]);
    const calibrated = calibrateCosines(cosines, 'candidate-floor');
    expect(calibrated.get('a')).toBeCloseTo(0.875, 10);
    expect(calibrated.get('b')).toBeCloseTo(0.25, 10);
    expect(calibrated.get('c')).toBe(0);
    expect(cosines.get('c')).toBe(0.2);
    expect(calibrateCosines(new Map([['a', 0.6]]), 'candidate-floor').get('a')).toBeCloseTo(0.6);
    expect([...calibrateCosines(new Map([['a', -0.2]]), 'none').values()]).toEqual([0]);
  });
});

describe('default fusion from the embedder kind', () => {
  // Fixed vectors with known cosines to the query: the paraphrase is close in meaning and shares
  // no word; the other card shares one word of the query and little meaning.
  const query = 'crisp apples from the orchard';
  const vectors: Record<string, number[]> = {
    [query]: [1, 0, 0],
    'I picked fruit at a farm.': [0.9, Math.sqrt(1 - 0.81), 0],
    'The weather report mentions apples.': [0.3, Math.sqrt(1 - 0.09), 0],
    'My bicycle has a flat tyre.': [0.25, 0, Math.sqrt(1 - 0.0625)],
  };
  const embedderOf = (kind: EmbedderKind | undefined): Embedder => ({
    id: `fixed-${kind}`,
    dimensions: 3,
    ...(kind === undefined ? {} : { kind }),
    async embed(texts) {
      return texts.map((text) => Float32Array.from(vectors[text] ?? [0, 0, 1]));
    },
  });
  async function best(kind: EmbedderKind | undefined): Promise<string | undefined> {
    const store = createInMemoryMemoryStore();
    const scope = { userId: 'fusion' };
    await store.add(
      scope,
      Object.keys(vectors)
        .filter((text) => text !== query)
        .map((content) => ({ content })),
    );
    const search = createMemorySearch({ store, embedder: embedderOf(kind) });
    return (await search.search(scope, query))[0]?.card.content;
  }

  it('lets a semantic embedder (or one that does not say) outrank a one-word keyword match', async () => {
    expect(await best('semantic')).toBe('I picked fruit at a farm.');
    expect(await best(undefined)).toBe('I picked fruit at a farm.');
  });

  it('lets BM25 lead with a lexical embedder', async () => {
    expect(await best('lexical')).toBe('The weather report mentions apples.');
  });

  it('rejects an unknown cosine calibration', () => {
    expect(() =>
      createMemorySearch({
        store: createInMemoryMemoryStore(),
        cosineCalibration: 'z-score' as never,
      }),
    ).toThrow(InvalidArgumentError);
  });
});

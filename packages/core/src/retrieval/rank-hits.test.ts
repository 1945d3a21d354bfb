import { describe, expect, it } from 'vitest';
import type { MemoryCard, Scope } from '../contracts/index.js';
import { createInMemoryMemoryStore } from '../memory/index.js';
import { createFixedEmbedder } from '../test/embedders.js';
import type { Candidates } from './candidate-search.js';
import { fuseCandidates, rankHits } from './rank-hits.js';
import { createScopeSync } from './scope-sync.js';
import { resolveSearchOptions } from './search-settings.js';

const scope: Scope = { userId: 'alice' };
const weights = { bm25: 0.8, vector: 0.2 };

describe('fuseCandidates', () => {
  const candidates: Candidates = {
    usedMode: 'hybrid',
    lexicalHits: [
      { id: 'a', score: 4 },
      { id: 'b', score: 1 },
    ],
    vector: new Map([
      ['b', 0.9],
      ['c', 0.5],
    ]),
  };

  it('weights BM25 coverage (capped at 1) and cosines, and says how relevant each card is', () => {
    const fused = fuseCandidates(candidates, 2, {
      fusion: 'weighted',
      weights,
      cosineCalibration: 'none',
      rrfK: 60,
    });
    expect(fused.coverage).toEqual(
      new Map([
        ['a', 1],
        ['b', 0.5],
      ]),
    );
    expect(fused.scores.get('a')).toBeCloseTo(0.8);
    expect(fused.scores.get('b')).toBeCloseTo(0.8 * 0.5 + 0.2 * 0.9);
    expect(fused.scores.get('c')).toBeCloseTo(0.2 * 0.5);
    expect(fused.relevanceOf('c')).toBeCloseTo(0.1);
  });

  it('ranks alone with rrf, and uses one side after a fallback or in one mode', () => {
    const rrf = fuseCandidates(candidates, 2, {
      fusion: 'rrf',
      weights,
      cosineCalibration: 'none',
      rrfK: 60,
    });
    expect(rrf.scores.get('b')!).toBeGreaterThan(rrf.scores.get('a')!);
    const bm25 = fuseCandidates({ ...candidates, usedMode: 'bm25', vector: undefined }, 2, {
      fusion: 'weighted',
      weights,
      cosineCalibration: 'none',
      rrfK: 60,
    });
    expect([...bm25.scores]).toEqual([
      ['a', 1],
      ['b', 0.5],
    ]);
    expect(bm25.relevanceOf('b')).toBe(0.5);
  });
});

describe('rankHits', () => {
  async function rankedFor(cards: Array<Pick<MemoryCard, 'content' | 'type'>>) {
    const store = createInMemoryMemoryStore();
    const added = await store.add(
      scope,
      cards.map((card) => ({ ...card, tags: [] })),
    );
    const settings = resolveSearchOptions({ store, embedder: createFixedEmbedder() });
    const { state } = await createScopeSync(settings).syncCards(scope);
    return { added, settings, state };
  }

  it('flags hits below the relevance floor, drops them on request, and applies type boosts and minScore', async () => {
    const { added, settings, state } = await rankedFor([
      { content: 'green tea every morning', type: 'preference' },
      { content: 'tea', type: 'fact' },
    ]);
    const [full, partial] = added.map((card) => card.id);
    const query = 'green tea morning routine habit';
    const lexicalHits = state.bm25.search(query, 10);
    const candidates: Candidates = { usedMode: 'bm25', lexicalHits };
    const noVectors = () => undefined;
    const hits = rankHits(
      state,
      query,
      candidates,
      { ...settings, relevanceFloor: 0.2 },
      noVectors,
      {
        topK: 5,
      },
    );
    expect(hits.map((hit) => hit.card.id)).toEqual([full, partial]);
    expect(hits[0]!.lowConfidence).toBeUndefined();
    expect(hits[1]!.lowConfidence).toBe(true);
    expect(hits[0]!.bm25).toBe(lexicalHits[0]!.score);

    const dropped = rankHits(
      state,
      query,
      candidates,
      { ...settings, relevanceFloor: 0.2 },
      noVectors,
      {
        topK: 5,
        dropLowConfidence: true,
      },
    );
    expect(dropped.map((hit) => hit.card.id)).toEqual([full]);

    const boosted = rankHits(state, query, candidates, settings, noVectors, {
      topK: 5,
      typeBoosts: { preference: 0 },
    });
    expect(boosted.map((hit) => hit.card.id)).toEqual([partial]);
    const cut = rankHits(state, query, candidates, settings, noVectors, {
      topK: 5,
      minScore: hits[0]!.score,
    });
    expect(cut.map((hit) => hit.card.id)).toEqual([full]);
  });

  it('marks every hit keyword-only after a fallback', async () => {
    const { state, settings } = await rankedFor([{ content: 'tea in Berlin', type: 'fact' }]);
    const hits = rankHits(
      state,
      'berlin',
      {
        usedMode: 'bm25',
        lexicalHits: state.bm25.search('berlin', 5),
        fallback: { reason: 'timeout', message: 'slow' },
      },
      settings,
      () => undefined,
      { topK: 5 },
    );
    expect(hits).toHaveLength(1);
    expect(hits[0]!.keywordOnly).toBe(true);
  });
});

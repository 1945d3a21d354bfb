import { describe, expect, it } from 'vitest';
import type { Scope } from '../contracts/index.js';
import { createInMemoryMemoryStore } from '../memory/index.js';
import { createFixedEmbedder } from '../test/embedders.js';
import { createCandidateSearch } from './candidate-search.js';
import { createCardEmbeddings } from './card-embeddings.js';
import type { RetrievalFallbackEvent } from './memory-search-types.js';
import { raceSignal } from './race-signal.js';
import { createScopeSync } from './scope-sync.js';
import { resolveSearchOptions } from './search-settings.js';

const scope: Scope = { userId: 'alice' };

async function setup(delayMs = 0) {
  const store = createInMemoryMemoryStore();
  await store.add(scope, [
    { content: 'The user drinks green tea', type: 'preference', tags: [] },
    { content: 'The office is in Berlin', type: 'fact', tags: [] },
  ]);
  const events: RetrievalFallbackEvent[] = [];
  const settings = resolveSearchOptions({
    store,
    embedder: createFixedEmbedder({ delayMs }),
    timeoutMs: 50,
    onFallback: (event) => events.push(event),
  });
  const { state } = await createScopeSync(settings).syncCards(scope);
  const search = createCandidateSearch(settings, createCardEmbeddings(settings));
  return { state, search, events };
}

describe('createCandidateSearch', () => {
  it('gives both sides in hybrid mode and one side in the others', async () => {
    const { state, search } = await setup();
    const query = { scope, query: 'green tea', poolSize: 5 };
    const hybrid = await search(state, { ...query, mode: 'hybrid' });
    expect(hybrid.usedMode).toBe('hybrid');
    expect(hybrid.lexicalHits).toHaveLength(1);
    expect(hybrid.vector!.size).toBeGreaterThan(0);
    const bm25 = await search(state, { ...query, mode: 'bm25' });
    expect(bm25.vector).toBeUndefined();
    const vector = await search(state, { ...query, mode: 'vector' });
    expect(vector.lexicalHits).toEqual([]);
  });

  it('keeps to the filter on both sides', async () => {
    const { state, search } = await setup();
    const accepts = (id: string) => state.entries.get(id)!.card.type === 'fact';
    const found = await search(state, {
      scope,
      query: 'the user tea office',
      mode: 'hybrid',
      poolSize: 5,
      accepts,
    });
    for (const id of [...found.lexicalHits.map((hit) => hit.id), ...found.vector!.keys()]) {
      expect(accepts(id)).toBe(true);
    }
  });

  it('falls back to BM25 past timeoutMs and reports it', async () => {
    const { state, search, events } = await setup(1000);
    const found = await search(state, { scope, query: 'berlin', mode: 'hybrid', poolSize: 5 });
    expect(found.usedMode).toBe('bm25');
    expect(found.fallback?.reason).toBe('timeout');
    expect(found.lexicalHits).toHaveLength(1);
    expect(events).toMatchObject([{ from: 'hybrid', to: 'bm25', reason: 'timeout' }]);
  });
});

describe('raceSignal', () => {
  it('rejects with the abort reason while the promise keeps running', async () => {
    const controller = new AbortController();
    let settle: (value: number) => void = () => {};
    const slow = new Promise<number>((resolve) => {
      settle = resolve;
    });
    const raced = raceSignal(slow, controller.signal);
    controller.abort(new Error('given up'));
    await expect(raced).rejects.toThrow('given up');
    settle(1);
    expect(await slow).toBe(1);
    expect(await raceSignal(Promise.resolve(2), undefined)).toBe(2);
  });
});

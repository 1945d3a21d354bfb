import { describe, expect, it } from 'vitest';
import type { Embedder, Scope } from '../contracts/index.js';
import { createInMemoryMemoryStore } from '../memory/index.js';
import { createFakeClock } from '../test/clock.js';
import { createFixedEmbedder } from '../test/embedders.js';
import { createCardEmbeddings } from './card-embeddings.js';
import { EmbedderDimensionError } from './embedder-dimension-error.js';
import { createScopeSync } from './scope-sync.js';
import { resolveSearchOptions } from './search-settings.js';

const scope: Scope = { userId: 'alice' };

async function setup(embedder: Embedder, cards = 5) {
  const clock = createFakeClock();
  const store = createInMemoryMemoryStore({ clock });
  await store.add(
    scope,
    Array.from({ length: cards }, (_, number) => ({
      content: `card number ${number} about topic ${number}`,
      type: 'fact' as const,
      tags: [],
    })),
  );
  const settings = resolveSearchOptions({
    store,
    embedder,
    batchSize: 2,
    embedderRetryMs: 1000,
    now: clock.now,
  });
  const { state } = await createScopeSync(settings).syncCards(scope);
  return { clock, settings, state, embeddings: createCardEmbeddings(settings) };
}

describe('createCardEmbeddings', () => {
  it('embeds the pending cards once, in batches, and indexes them', async () => {
    const embedder = createFixedEmbedder();
    const { settings, state, embeddings } = await setup(embedder);
    expect(embeddings.needsEmbedding(state)).toBe(true);
    expect(await embeddings.job(state)).toBe(5);
    expect(embedder.calls.map((call) => call.length)).toEqual([2, 2, 1]);
    expect(embeddings.needsEmbedding(state)).toBe(false);
    expect(await embeddings.job(state)).toBe(0);
    const query = await embeddings.embedQuery('topic 3', AbortSignal.timeout(1000));
    const hits = await settings.index.query(query, { k: 1, scopeKey: state.key });
    expect(state.entries.get(hits[0]!.id)!.text).toBe('card number 3 about topic 3');
    const entry = state.entries.get(hits[0]!.id)!;
    expect(embeddings.cachedVector(entry)).toBeInstanceOf(Float32Array);
  });

  it('remembers a wrong dimension for good', async () => {
    const fixed = createFixedEmbedder({ dimensions: 8 });
    const embedder: Embedder = { id: 'liar', dimensions: 16, embed: (texts) => fixed.embed(texts) };
    const { state, embeddings } = await setup(embedder);
    const error = await embeddings.job(state).catch((caught: unknown) => caught);
    expect(EmbedderDimensionError.isInstance(error)).toBe(true);
    expect(embeddings.dimensionError).toBe(error);
  });

  it('pauses a failing embedder for embedderRetryMs, and not for a timeout', async () => {
    const embedder = createFixedEmbedder({ behavior: 'fail' });
    const { clock, state, embeddings } = await setup(embedder);
    await expect(embeddings.job(state)).rejects.toThrow('fake embedder failure');
    expect(embeddings.pausedBy()).toBe('fake embedder failure');
    clock.advance(1000);
    expect(embeddings.pausedBy()).toBeUndefined();
    embeddings.recordFailure(new Error('again'));
    embeddings.recovered();
    expect(embeddings.pausedBy()).toBeUndefined();
  });
});

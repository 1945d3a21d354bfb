import { createInMemoryMemoryStore, createMemorySearch, InvalidArgumentError } from '@ctxmem/core';
import { APICallError } from 'ai';
import { MockEmbeddingModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { AiSdkEmbeddingError, aiSdkEmbedder } from './index.js';

describe('aiSdkEmbedder batching and retries', () => {
  it('sends batches of batchSize, split further by the model limit, in input order', async () => {
    const model = new MockEmbeddingModelV4({
      maxEmbeddingsPerCall: 2,
      doEmbed: async ({ values }) => ({
        embeddings: values.map((value) => [Number(value), 1]),
        warnings: [],
      }),
    });
    const embedder = aiSdkEmbedder(model, { dimensions: 2, batchSize: 3 });
    expect(embedder.kind).toBe('semantic');
    const vectors = await embedder.embed(['1', '2', '3', '4', '5']);
    expect(model.doEmbedCalls.map((call) => call.values)).toEqual([['1', '2'], ['3'], ['4', '5']]);
    expect(vectors.map((vector) => Math.round(vector[0]! / vector[1]!))).toEqual([1, 2, 3, 4, 5]);
  });

  it('retries a failed request, then reports a typed error that memory search falls back from', async () => {
    let calls = 0;
    const flaky = new MockEmbeddingModelV4({
      doEmbed: async ({ values }) => {
        calls++;
        if (calls === 1) {
          throw new APICallError({
            message: '503 busy',
            url: 'http://localhost/v1/embeddings',
            requestBodyValues: {},
            statusCode: 503,
            isRetryable: true,
          });
        }
        return { embeddings: values.map(() => [1, 0]), warnings: [] };
      },
    });
    await expect(
      aiSdkEmbedder(flaky, { dimensions: 2, maxRetries: 1 }).embed(['a']),
    ).resolves.toHaveLength(1);
    expect(calls).toBe(2);

    const down = new MockEmbeddingModelV4({
      doEmbed: async () => {
        throw new Error('connection refused');
      },
    });
    const embedder = aiSdkEmbedder(down, { dimensions: 2, maxRetries: 0, id: 'down' });
    const failure = await embedder.embed(['a']).catch((error: unknown) => error);
    expect(AiSdkEmbeddingError.isInstance(failure)).toBe(true);
    expect((failure as AiSdkEmbeddingError).embedderId).toBe('down');
    expect((failure as Error).message).toContain('connection refused');

    const store = createInMemoryMemoryStore();
    await store.add({}, [{ content: 'Likes green tea.' }]);
    const search = createMemorySearch({ store, embedder });
    const { hits, report } = await search.searchWithReport({}, 'green tea');
    expect(report.usedMode).toBe('bm25');
    expect(hits[0]?.keywordOnly).toBe(true);
  });

  it('rejects bad batching options', () => {
    const model = new MockEmbeddingModelV4({});
    expect(() => aiSdkEmbedder(model, { dimensions: 2, batchSize: 0 })).toThrow(
      InvalidArgumentError,
    );
    expect(() => aiSdkEmbedder(model, { dimensions: 2, maxParallelCalls: 1.5 })).toThrow(
      InvalidArgumentError,
    );
    expect(() => aiSdkEmbedder(model, { dimensions: 2, maxRetries: -1 })).toThrow(
      InvalidArgumentError,
    );
  });
});

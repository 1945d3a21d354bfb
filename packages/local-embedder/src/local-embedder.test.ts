import { createInMemoryMemoryStore, createMemorySearch, InvalidArgumentError } from '@ctxmem/core';
import { describe, expect, it } from 'vitest';
import { createLocalEmbedder, LOCAL_EMBEDDER_DIMENSIONS, LocalEmbedderLoadError } from './index.js';

/** A stand-in model: one-hot-ish vectors of the text length, and a log of its calls. */
function fakeModel() {
  const calls: string[][] = [];
  return {
    calls,
    loadModel: async () => ({
      async embed(texts: string[]) {
        calls.push(texts);
        return texts.map((text) => {
          const row = new Array<number>(LOCAL_EMBEDDER_DIMENSIONS).fill(0);
          row[text.length % LOCAL_EMBEDDER_DIMENSIONS] = 3;
          row[0] = (row[0] ?? 0) + 4;
          return row;
        });
      },
    }),
  };
}

const cosine = (left: Float32Array, right: Float32Array) =>
  left.reduce((sum, value, index) => sum + value * right[index]!, 0);

describe('createLocalEmbedder', () => {
  it('loads the bundled model offline and ranks a paraphrase above an unrelated text', async () => {
    const embedder = createLocalEmbedder();
    expect(embedder.kind).toBe('semantic');
    const [query, paraphrase, unrelated] = await embedder.embed([
      'How long have they been married?',
      'We celebrated our fifth wedding anniversary last week.',
      'The printer on the third floor is out of toner.',
    ]);
    for (const vector of [query!, paraphrase!, unrelated!]) {
      expect(vector).toHaveLength(512);
      expect(Math.hypot(...vector)).toBeCloseTo(1, 4);
    }
    expect(cosine(query!, paraphrase!)).toBeGreaterThan(cosine(query!, unrelated!) + 0.1);

    // Through memory search: the semantic match wins although it shares no word with the query.
    const memory = createInMemoryMemoryStore();
    const scope = { userId: 'local-embedder-test' };
    await memory.add(scope, [
      { content: 'Our fifth wedding anniversary was last week.' },
      { content: 'The printer on the third floor is out of toner again.' },
      { content: 'I adopted a puppy from the shelter.' },
    ]);
    const search = createMemorySearch({ store: memory, embedder, timeoutMs: 60_000 });
    const [best] = await search.search(scope, 'How long have they been married?');
    expect(best?.card.content).toContain('anniversary');
  }, 180_000);

  it('loads once, embeds in batches, cuts long texts and normalises', async () => {
    const model = fakeModel();
    let loads = 0;
    const embedder = createLocalEmbedder({
      batchSize: 2,
      maxCharacters: 10,
      loadModel: () => {
        loads++;
        return model.loadModel();
      },
    });
    expect(loads).toBe(0);
    const [first, second] = await Promise.all([
      embedder.embed(['a', 'bb', 'ccc', 'a much longer text than ten']),
      embedder.embed(['']),
    ]);
    expect(loads).toBe(1);
    // Concurrent callers take turns batch by batch.
    expect(model.calls).toEqual([['a', 'bb'], [' '], ['ccc', 'a much lon']]);
    expect(first).toHaveLength(4);
    expect(second).toHaveLength(1);
    for (const vector of [...first!, ...second!]) {
      expect(vector).toBeInstanceOf(Float32Array);
      expect(Math.hypot(...vector)).toBeCloseTo(1, 5);
    }
    expect(await embedder.embed([])).toEqual([]);
  });

  it('reports a failed load as a typed error and retries the load on the next call', async () => {
    let attempts = 0;
    const model = fakeModel();
    const embedder = createLocalEmbedder({
      loadModel: async () => {
        attempts++;
        if (attempts === 1) throw new Error("Cannot find package '@energetic-ai/embeddings'");
        return model.loadModel();
      },
    });
    const failure = await embedder.embed(['hello']).catch((error: unknown) => error);
    expect(LocalEmbedderLoadError.isInstance(failure)).toBe(true);
    expect((failure as Error).message).toContain('@energetic-ai/embeddings');
    await expect(embedder.embed(['hello'])).resolves.toHaveLength(1);
    expect(attempts).toBe(2);
  });

  it('stops between batches when aborted and rejects bad options', async () => {
    const model = fakeModel();
    const embedder = createLocalEmbedder({ batchSize: 1, loadModel: model.loadModel });
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(embedder.embed(['a', 'b'], { abortSignal: controller.signal })).rejects.toThrow(
      'stop',
    );
    expect(model.calls).toEqual([]);
    expect(() => createLocalEmbedder({ batchSize: 0 })).toThrow(InvalidArgumentError);
    expect(() => createLocalEmbedder({ maxCharacters: 1.5 })).toThrow(InvalidArgumentError);
  });
});

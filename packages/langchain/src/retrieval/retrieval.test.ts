import {
  createInMemoryMemoryStore,
  createMemorySearch,
  EmbedderDimensionError,
  InvalidArgumentError,
} from '@ctxmem/core';
import { testMemoryIndex } from '@ctxmem/core/test';
import { MemoryVectorStore } from '@langchain/classic/vectorstores/memory';
import type { Document } from '@langchain/core/documents';
import { Embeddings } from '@langchain/core/embeddings';
import { RunnableLambda } from '@langchain/core/runnables';
import { FakeEmbeddings } from '@langchain/core/utils/testing';
import { describe, expect, it } from 'vitest';
import { langChainEmbedder, MemoryRetriever, vectorStoreMemoryIndex } from './index.js';

/** A deterministic bag-of-words embedding model: texts sharing words get similar vectors. */
class WordEmbeddings extends Embeddings {
  calls = 0;
  constructor(private readonly dimensions = 32) {
    super({});
  }
  vector(text: string): number[] {
    const vector = new Array<number>(this.dimensions).fill(0);
    for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
      let hash = 0;
      for (const character of word) hash = (hash * 31 + character.charCodeAt(0)) >>> 0;
      vector[hash % this.dimensions]! += 3;
    }
    return vector;
  }
  async embedDocuments(texts: string[]): Promise<number[][]> {
    this.calls++;
    return texts.map((text) => this.vector(text));
  }
  async embedQuery(text: string): Promise<number[]> {
    return this.vector(text);
  }
}

testMemoryIndex('LangChain MemoryVectorStore', ({ dimensions }) =>
  vectorStoreMemoryIndex(new MemoryVectorStore(new FakeEmbeddings()), { dimensions }),
);

testMemoryIndex('LangChain MemoryVectorStore with a scope filter', ({ dimensions }) =>
  vectorStoreMemoryIndex(new MemoryVectorStore(new FakeEmbeddings()), {
    dimensions,
    scopeFilter: (scopeKey) => (document: Document) => document.metadata.scopeKey === scopeKey,
  }),
);

describe('vectorStoreMemoryIndex', () => {
  it('converts distances with toCosine and validates its options', async () => {
    const store = new MemoryVectorStore(new FakeEmbeddings());
    const index = vectorStoreMemoryIndex(store, { dimensions: 2, toCosine: (score) => score / 2 });
    await index.upsert([{ id: 'a', vector: Float32Array.of(1, 0), scopeKey: 's' }]);
    expect(await index.query(Float32Array.of(1, 0), { k: 1, scopeKey: 's' })).toEqual([
      { id: 'a', score: 0.5 },
    ]);
    expect(() => vectorStoreMemoryIndex(store, { dimensions: 0 })).toThrow(InvalidArgumentError);
    expect(() => vectorStoreMemoryIndex({} as MemoryVectorStore, { dimensions: 2 })).toThrow(
      InvalidArgumentError,
    );
  });
});

describe('langChainEmbedder', () => {
  it('embeds with L2-normalised vectors and checks what the model returns', async () => {
    const embeddings = new WordEmbeddings(8);
    const embedder = langChainEmbedder(embeddings, { dimensions: 8 });
    expect(embedder.id).toBe('langchain:WordEmbeddings:8');
    const [vector] = await embedder.embed(['hello world']);
    expect(vector).toBeInstanceOf(Float32Array);
    expect(Math.hypot(...vector!)).toBeCloseTo(1, 5);
    expect(await embedder.embed([])).toEqual([]);
    await expect(langChainEmbedder(embeddings, { dimensions: 9 }).embed(['x'])).rejects.toThrow(
      EmbedderDimensionError,
    );
    expect(() => langChainEmbedder(embeddings, { dimensions: -1 })).toThrow(InvalidArgumentError);
    const aborted = new AbortController();
    aborted.abort(new Error('stop'));
    await expect(embedder.embed(['x'], { abortSignal: aborted.signal })).rejects.toThrow('stop');
  });
});

describe('MemoryRetriever', () => {
  async function seededStore() {
    const store = createInMemoryMemoryStore();
    await store.add({ userId: 'u1' }, [
      { content: 'The user prefers vegetarian food.', type: 'preference', tags: ['food'] },
      { content: 'The user is allergic to peanuts.', type: 'fact', tags: ['food', 'health'] },
      { content: 'The user drives an electric car.', type: 'fact', tags: ['travel'] },
      { content: 'Decided to book the train to Porto.', type: 'decision', tags: ['travel'] },
    ]);
    await store.add({ userId: 'u2' }, [
      { content: 'The user loves peanut butter food.', type: 'preference' },
    ]);
    return store;
  }

  it('returns Documents with the card fields as metadata, in its scope only', async () => {
    const store = await seededStore();
    const retriever = new MemoryRetriever({ store, scope: { userId: 'u1' } });
    const documents = await retriever.invoke('What food does the user eat? peanuts?');
    expect(documents.length).toBeGreaterThan(0);
    expect(documents.length).toBeLessThanOrEqual(4);
    expect(documents[0]!.pageContent).toMatch(/peanuts|vegetarian/);
    const metadata = documents[0]!.metadata;
    expect(metadata).toMatchObject({ scope: { userId: 'u1' }, tags: expect.any(Array) });
    expect(typeof metadata.id).toBe('string');
    expect(documents[0]!.id).toBe(metadata.id);
    expect(typeof metadata.score).toBe('number');
    expect(metadata.createdAt).toMatch(/^\d{4}-/);
    expect(documents.some((document) => document.pageContent.includes('peanut butter'))).toBe(
      false,
    );

    const other = await retriever.withScope({ userId: 'u2' }).invoke('peanut food');
    expect(other.map((document) => document.pageContent)).toEqual([
      'The user loves peanut butter food.',
    ]);
    expect(await retriever.withScope({ userId: 'nobody' }).invoke('peanut food')).toEqual([]);
  });

  it('honours k, minScore and the type and tag filters', async () => {
    const store = await seededStore();
    const base = { store, scope: { userId: 'u1' } };
    expect(
      await new MemoryRetriever({ ...base, k: 1 }).invoke('user food peanuts car train'),
    ).toHaveLength(1);
    const facts = await new MemoryRetriever({ ...base, filter: { types: ['fact'] } }).invoke(
      'user food car train',
    );
    expect(facts.length).toBeGreaterThan(0);
    expect(facts.every((document) => document.metadata.type === 'fact')).toBe(true);
    const travel = await new MemoryRetriever({ ...base, filter: { tags: ['travel'] } }).invoke(
      'user food car train',
    );
    expect(travel.map((document) => document.pageContent).sort()).toEqual([
      'Decided to book the train to Porto.',
      'The user drives an electric car.',
    ]);
    expect(await new MemoryRetriever({ ...base, minScore: 1_000 }).invoke('peanuts')).toEqual([]);
    expect(await new MemoryRetriever(base).invoke('   ')).toEqual([]);
    expect(() => new MemoryRetriever({ ...base, k: 0 })).toThrow(InvalidArgumentError);
  });

  it('searches with a LangChain embedding model and vector store, and runs in a chain', async () => {
    const store = await seededStore();
    const embeddings = new WordEmbeddings(64);
    const embedder = langChainEmbedder(embeddings, { dimensions: 64 });
    const index = vectorStoreMemoryIndex(new MemoryVectorStore(embeddings), { dimensions: 64 });
    const search = createMemorySearch({ store, embedder, index, mode: 'vector' });
    const retriever = new MemoryRetriever({ store, search, scope: { userId: 'u1' }, k: 2 });
    const chain = retriever.pipe(
      RunnableLambda.from((documents: Document[]) =>
        documents.map((document) => `- ${document.pageContent}`).join('\n'),
      ),
    );
    const context = await chain.invoke('electric car');
    expect(context.split('\n')[0]).toBe('- The user drives an electric car.');
    expect(embeddings.calls).toBeGreaterThan(0);
    expect(index.size()).toBe(4);
  });
});

import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Embedder, MemoryIndex, Scope } from '../contracts/index.js';
import { createFileMemoryStore, createInMemoryMemoryStore } from '../memory/index.js';
import { scopeFolder } from '../storage/index.js';
import { analyzeText } from '../text/index.js';
import {
  createBruteForceIndex,
  createHashingEmbedder,
  createMemorySearch,
  type SearchIndexEvent,
} from './index.js';

let base: string;
let counter = 0;
const scope: Scope = { userId: 'u1' };

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'ctxmem-saved-index-'));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

/** The hashing embedder, counting the texts it embeds. */
function countingEmbedder(): Embedder & { texts: number } {
  const inner = createHashingEmbedder();
  const embedder = {
    id: inner.id,
    dimensions: inner.dimensions,
    kind: inner.kind,
    texts: 0,
    embed(texts: string[], options?: { abortSignal?: AbortSignal }) {
      embedder.texts += texts.length;
      return inner.embed(texts, options);
    },
  };
  return embedder as Embedder & { texts: number };
}

const notes = Array.from(
  { length: 40 },
  (_, index) =>
    `Note ${index}: the ${['red', 'blue', 'green'][index % 3]} deploy of service ${index}`,
);

async function filledRoot() {
  const root = join(base, `root-${counter++}`);
  await createFileMemoryStore({ root }).add(
    scope,
    notes.map((content) => ({ content })),
  );
  return root;
}

/** A new process: a new store and a new search on the same files. */
function open(root: string, options: { events?: SearchIndexEvent[]; embedder?: Embedder } = {}) {
  const embedder = options.embedder ?? countingEmbedder();
  const search = createMemorySearch({
    store: createFileMemoryStore({ root }),
    embedder,
    onIndexEvent: (event) => options.events?.push(event),
  });
  return { search, embedder: embedder as Embedder & { texts: number } };
}

const ids = async (search: ReturnType<typeof open>['search'], query: string) =>
  (await search.search(scope, query, { topK: 5 })).map((hit) => [hit.card.content, hit.score]);

async function savedIndexPath(root: string): Promise<string> {
  const folder = scopeFolder(root, scope);
  const name = (await readdir(folder)).find((file) => file.startsWith('search-index-'));
  expect(name).toBeDefined();
  return join(folder, name!);
}

describe('saved search indexes (file stores)', () => {
  it('saves the indexes on sync; a new process loads them instead of embedding every card', async () => {
    const root = await filledRoot();
    const first = open(root);
    expect((await first.search.sync(scope)).embedded).toBe(notes.length);
    const expected = await ids(first.search, 'blue deploy of service 7');
    await savedIndexPath(root);

    const second = open(root);
    const report = await second.search.sync(scope);
    expect(report).toMatchObject({ cards: notes.length, embedded: 0 });
    expect(second.embedder.texts).toBe(0);
    expect(await ids(second.search, 'blue deploy of service 7')).toEqual(expected);
  });

  it('analyses and embeds only what changed since the indexes were saved', async () => {
    const root = await filledRoot();
    await open(root).search.sync(scope);
    const store = createFileMemoryStore({ root });
    const [removed] = await store.list(scope);
    await store.remove(scope, [removed!.id]);
    await store.add(scope, [{ content: 'The purple deploy of service 99 failed' }]);

    const next = open(root);
    expect(await next.search.sync(scope)).toMatchObject({ cards: notes.length, embedded: 1 });
    const [hit] = await next.search.search(scope, 'purple deploy failed');
    expect(hit?.card.content).toBe('The purple deploy of service 99 failed');
    const contents = (await next.search.search(scope, removed!.content, { topK: 40 })).map(
      (found) => found.card.content,
    );
    expect(contents).not.toContain(removed!.content);
    // What the second process saved is complete: a third one embeds nothing.
    expect((await open(root).search.sync(scope)).embedded).toBe(0);
  });

  it('rebuilds a damaged saved index once, with an event, and saves it again', async () => {
    const root = await filledRoot();
    const first = open(root);
    await first.search.sync(scope);
    const expected = await ids(first.search, 'green deploy');
    const path = await savedIndexPath(root);
    const bytes = await readFile(path);
    await writeFile(path, bytes.subarray(0, bytes.length - 7));

    const events: SearchIndexEvent[] = [];
    const second = open(root, { events });
    expect((await second.search.sync(scope)).embedded).toBe(notes.length);
    expect(events).toEqual([
      expect.objectContaining({ type: 'search-index-rebuilt', scope, path }),
    ]);
    expect(events[0]!.message).toMatch(/cut short/);
    expect(await ids(second.search, 'green deploy')).toEqual(expected);

    const third = open(root, { events });
    expect((await third.search.sync(scope)).embedded).toBe(0);
    expect(events).toHaveLength(1);
  });

  it('treats an index built by another text analysis as stale', async () => {
    const root = await filledRoot();
    await open(root).search.sync(scope);
    // Without date terms, BM25 indexes other text: the saved analysis does not fit.
    const events: SearchIndexEvent[] = [];
    const next = createMemorySearch({
      store: createFileMemoryStore({ root }),
      dates: false,
      onIndexEvent: (event) => events.push(event),
    });
    expect((await next.sync(scope)).embedded).toBe(notes.length);
    expect(events[0]).toMatchObject({ type: 'search-index-rebuilt' });
    expect(events[0]!.message).toMatch(/another text analysis/);
  });

  it('saves nothing with a custom analyzer or a store that keeps no files', async () => {
    const root = await filledRoot();
    const custom = createMemorySearch({
      store: createFileMemoryStore({ root }),
      analyzer: (text) => analyzeText(text.toUpperCase()),
    });
    await custom.sync(scope);
    expect(
      (await readdir(scopeFolder(root, scope))).filter((file) => file.startsWith('search-')),
    ).toEqual([]);
    const inMemory = createInMemoryMemoryStore();
    await inMemory.add(scope, [{ content: 'kept in memory' }]);
    const search = createMemorySearch({ store: inMemory });
    expect((await search.sync(scope)).cards).toBe(1);
  });

  it('keeps BM25 but embeds again with an index that is not the brute-force one', async () => {
    const root = await filledRoot();
    await open(root).search.sync(scope);
    const inner = createBruteForceIndex({ dimensions: createHashingEmbedder().dimensions });
    const wrapped: MemoryIndex = {
      dimensions: inner.dimensions,
      upsert: (items) => inner.upsert(items),
      remove: (removed) => inner.remove(removed),
      query: (vector, options) => inner.query(vector, options),
      size: () => inner.size(),
    };
    const search = createMemorySearch({ store: createFileMemoryStore({ root }), index: wrapped });
    expect((await search.sync(scope)).embedded).toBe(notes.length);
    const [hit] = await search.search(scope, 'deploy of service 12');
    expect(hit?.card.content).toBe(notes[12]);
  });
});

describe('saved search indexes: loading without reading the card log', () => {
  it.each(['CTXMSIX1', 'CTXMSIX2'])(
    'rebuilds an index of an older format (%s) once, with an event',
    async (magic) => {
      const root = await filledRoot();
      await open(root).search.sync(scope);
      const path = await savedIndexPath(root);
      // A file of an older version: its magic bytes, then anything.
      await writeFile(path, Buffer.concat([Buffer.from(magic, 'latin1'), Buffer.alloc(64)]));
      const events: SearchIndexEvent[] = [];
      const next = open(root, { events });
      expect((await next.search.sync(scope)).embedded).toBe(notes.length);
      expect(events).toEqual([expect.objectContaining({ type: 'search-index-rebuilt', path })]);
      expect(events[0]!.message).toMatch(/older version/);
      expect((await open(root, { events }).search.sync(scope)).embedded).toBe(0);
      expect(events).toHaveLength(1);
    },
  );

  it('reads only the lines appended since the save, not the whole log', async () => {
    const root = await filledRoot();
    await open(root).search.sync(scope);
    // Change the first card in the log behind the store's back, far before the saved position
    // (a store never rewrites a line in place): the saved index, not the log, answers for it.
    const log = join(scopeFolder(root, scope), 'cards.jsonl');
    const text = await readFile(log, 'utf8');
    await writeFile(log, text.replace('Note 0: the red', 'Note 0: the tan'));
    const [hit] = await open(root).search.search(scope, 'note 0 red deploy');
    expect(hit?.card.content).toBe(notes[0]);
  });

  it('follows what other processes appended to the log, and a compacted log', async () => {
    const root = await filledRoot();
    await open(root).search.sync(scope);
    // Another process adds, supersedes nothing, and removes.
    const other = createFileMemoryStore({ root });
    const [first] = await other.list(scope);
    await other.add(scope, [{ content: 'The orange deploy of service 77 rolled back' }]);
    await other.remove(scope, [first!.id]);

    const memory = createInMemoryMemoryStore();
    await memory.add(
      scope,
      (await other.list(scope)).map(({ content, type, tags }) => ({ content, type, tags })),
    );
    const expected = await createMemorySearch({ store: memory }).search(scope, 'orange deploy', {
      topK: 3,
    });

    const next = open(root);
    expect(await next.search.sync(scope)).toMatchObject({ cards: notes.length, embedded: 1 });
    const hits = await next.search.search(scope, 'orange deploy', { topK: 3 });
    expect(hits.map((hit) => [hit.card.content, hit.score])).toEqual(
      expected.map((hit) => [hit.card.content, hit.score]),
    );
    const all = await next.search.search(scope, first!.content, { topK: 40 });
    expect(all.map((hit) => hit.card.id)).not.toContain(first!.id);

    // Removing most cards compacts the log (a new generation): the next process reads it whole.
    const many = await other.list(scope);
    await other.remove(
      scope,
      many.slice(0, 30).map((card) => card.id),
    );
    const after = open(root);
    expect((await after.search.sync(scope)).cards).toBe(notes.length - 30);
    expect((await after.search.search(scope, 'deploy', { topK: 40 })).length).toBe(
      notes.length - 30,
    );
  });

  it('saves no vectors for a large scope of the hashing embedder and embeds its candidates on demand', async () => {
    const root = join(base, `root-${counter++}`);
    const store = createFileMemoryStore({ root });
    const words = ['amber', 'cobalt', 'jade', 'onyx', 'ruby', 'slate', 'topaz', 'umber'];
    for (let start = 0; start < 5200; start += 1000) {
      await store.add(
        scope,
        Array.from({ length: Math.min(1000, 5200 - start) }, (_, offset) => {
          const index = start + offset;
          return {
            content: `Card ${index} ${words[index % 8]} ${words[(index * 3) % 8]} ${words[(index * 5 + 1) % 8]} deploy`,
          };
        }),
      );
    }
    const first = open(root);
    await first.search.sync(scope);
    const queries = ['amber jade deploy', 'card 17 topaz', 'umber onyx cobalt'];
    const expected = await Promise.all(
      queries.map((query) => first.search.search(scope, query, { topK: 10 })),
    );
    const size = (await readFile(await savedIndexPath(root))).length;
    // Cards, ids and postings only: 5,200 vectors of 384 floats would take 8 MB.
    expect(size).toBeLessThan(2_000_000);

    const next = open(root);
    expect(await next.search.sync(scope)).toMatchObject({ cards: 5200, embedded: 0 });
    for (const [position, query] of queries.entries()) {
      const hits = await next.search.search(scope, query, { topK: 10 });
      expect(hits.map((hit) => hit.card.id)).toEqual(expected[position]!.map((hit) => hit.card.id));
      hits.forEach((hit, at) => {
        const reference = expected[position]![at]!.vector;
        if (reference === undefined) expect(hit.vector).toBeUndefined();
        else expect(hit.vector).toBeCloseTo(reference, 6);
      });
    }
    // Only candidates were embedded, not the scope.
    expect(next.embedder.texts).toBeLessThan(1000);
  });
});

describe('vector side of a lexical embedder', () => {
  // The vector side of a large scope ranks BM25's best matches only: every cosine it reports is
  // exact, the BM25 side is untouched, and the best hit ties with the full scan's on BM25.
  it('scores only the best keyword matches in a large scope, with exact cosines', async () => {
    const store = createInMemoryMemoryStore();
    const words = ['amber', 'cobalt', 'jade', 'onyx', 'ruby', 'slate', 'topaz', 'umber'];
    await store.add(
      scope,
      // Past the 5,000 cards under which every vector is scanned anyway.
      Array.from({ length: 5200 }, (_, index) => ({
        content: `Card ${index} ${words[index % 8]} ${words[(index * 3) % 8]} ${words[(index * 5 + 1) % 8]} deploy`,
      })),
    );
    const inner = createBruteForceIndex({ dimensions: createHashingEmbedder().dimensions });
    // A plain object: the search cannot score candidates on it and scans every vector.
    const scanning: MemoryIndex = {
      dimensions: inner.dimensions,
      upsert: (items) => inner.upsert(items),
      remove: (removed) => inner.remove(removed),
      query: (vector, options) => inner.query(vector, options),
      size: () => inner.size(),
    };
    const restricted = createMemorySearch({ store });
    const full = createMemorySearch({ store, index: scanning });
    // Index up front, without the per-search time limit: on a loaded machine embedding 5,200
    // cards inside a search can run out of time and answer from BM25 alone.
    await full.sync(scope);
    await restricted.sync(scope);
    for (const query of ['amber jade deploy', 'ruby slate', 'topaz card 17', 'umber onyx cobalt']) {
      const expected = await full.search(scope, query, { topK: 10 });
      const actual = await restricted.search(scope, query, { topK: 10 });
      // Thousands of cards tie on BM25 here and ids are random, so which of the tied cards get a
      // cosine differs between the two searches: the best hit is one of the best-tied cards.
      expect(actual[0]!.bm25).toBe(expected[0]!.bm25);
      const reference = new Map(
        (await full.search(scope, query, { topK: 200 })).map((hit) => [hit.card.id, hit]),
      );
      for (const hit of actual) {
        const other = reference.get(hit.card.id);
        expect(other, hit.card.content).toBeDefined();
        expect(hit.bm25).toBe(other!.bm25);
        if (hit.vector !== undefined && other!.vector !== undefined) {
          expect(hit.vector).toBe(other!.vector);
        }
      }
    }
  });
});

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MemoryCard, MemoryCardDraft, MemoryStore, Scope } from '../contracts/index.js';
import { InvalidArgumentError } from '../errors/index.js';
import type { MemorySearcher } from '../inject/index.js';
import { createFileMemoryStore, createInMemoryMemoryStore } from '../memory/index.js';
import { createFakeClock } from '../test/clock.js';
import { createFixedEmbedder } from '../test/embedders.js';
import {
  createBruteForceIndex,
  createMemorySearch,
  EmbedderDimensionError,
  type MemorySearchOptions,
  type RetrievalFallbackEvent,
} from './index.js';

const alice: Scope = { userId: 'alice' };
const bob: Scope = { userId: 'bob' };

const drafts: MemoryCardDraft[] = [
  { content: 'The user prefers Python for scripting tasks', type: 'preference', tags: ['python'] },
  { content: 'Never deploy to production on Fridays', type: 'constraint', tags: ['deploy'] },
  { content: 'The team chose an A100 GPU for model training', type: 'decision', tags: ['gpu'] },
  { content: 'Write the migration guide before the release', type: 'todo', tags: ['docs'] },
];

async function setup(options: Partial<MemorySearchOptions> = {}) {
  const clock = createFakeClock('2026-01-01T00:00:00.000Z');
  const store = createInMemoryMemoryStore({ clock });
  const cards = await store.add(alice, drafts);
  const embedder = createFixedEmbedder({ dimensions: 32 });
  const events: RetrievalFallbackEvent[] = [];
  const search = createMemorySearch({
    store,
    embedder,
    onFallback: (event) => events.push(event),
    ...options,
  });
  return { clock, store, cards, embedder, search, events };
}

/** A store that lists exactly these cards, without the de-duplication of the real stores. */
function listingStore(cards: () => MemoryCard[]): MemoryStore {
  return {
    add: async () => [],
    get: async (_scope, id) => cards().find((card) => card.id === id)!,
    remove: async () => {},
    list: async (scope) => cards().filter((card) => card.scope.userId === scope.userId),
  };
}

function makeCard(id: string, content: string, extra: Partial<MemoryCard> = {}): MemoryCard {
  return {
    id,
    content,
    type: 'fact',
    tags: [],
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    scope: alice,
    ...extra,
  };
}

function contents(hits: Array<{ card: MemoryCard }>): string[] {
  return hits.map((hit) => hit.card.content);
}

function thrown(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('createMemorySearch', () => {
  it.each(['hybrid', 'bm25', 'vector'] as const)(
    'finds the relevant card first (%s)',
    async (mode) => {
      const { search } = await setup({ mode });
      const hits = await search.search(alice, 'Which GPU did the team choose for training?');
      expect(hits[0]?.card.content).toBe('The team chose an A100 GPU for model training');
      expect(hits[0]!.score).toBeGreaterThan(0);
    },
  );

  it('reports the raw BM25 and cosine scores of each hit in hybrid mode', async () => {
    const { search } = await setup({ mode: 'hybrid' });
    const [hit] = await search.search(alice, 'GPU training');
    expect(hit!.bm25).toBeGreaterThan(0);
    expect(hit!.vector).toBeGreaterThan(0);
    expect(hit!.vector).toBeLessThanOrEqual(1);
  });

  it('works out of the box with the built-in hashing embedder and index', async () => {
    const store = createInMemoryMemoryStore();
    await store.add(alice, drafts);
    const search = createMemorySearch({ store });
    const hits = await search.search(alice, 'deploying on a friday?');
    expect(hits[0]?.card.content).toBe('Never deploy to production on Fridays');
  });

  it('with the hashing embedder still finds a card when the query word is misspelled', async () => {
    const store = createInMemoryMemoryStore();
    await store.add(alice, drafts);
    const hybrid = createMemorySearch({ store });
    const lexical = createMemorySearch({ store, mode: 'bm25' });
    expect(await lexical.search(alice, 'migraton guide')).toHaveLength(1);
    expect(await lexical.search(alice, 'migraton')).toEqual([]);
    const hits = await hybrid.search(alice, 'migraton');
    expect(hits[0]?.card.content).toBe('Write the migration guide before the release');
  });

  it('finds Chinese and Japanese memories through CJK n-grams', async () => {
    const store = createInMemoryMemoryStore();
    await store.add(alice, [
      { content: '我们决定GPU选型使用A100', type: 'decision' },
      { content: '用户喜欢用Python写脚本', type: 'preference' },
      { content: '会議は毎週月曜日の午前十時です' },
    ]);
    for (const mode of ['bm25', 'hybrid'] as const) {
      const search = createMemorySearch({ store, mode });
      expect(contents(await search.search(alice, 'GPU 选型'))[0]).toBe('我们决定GPU选型使用A100');
      expect(contents(await search.search(alice, '用户喜欢什么语言？'))[0]).toBe(
        '用户喜欢用Python写脚本',
      );
      expect(contents(await search.search(alice, '会議はいつ？'))[0]).toBe(
        '会議は毎週月曜日の午前十時です',
      );
    }
  });

  it('returns at most topK hits, and none for an empty query', async () => {
    const { search } = await setup();
    expect(await search.search(alice, 'the user the team the release', { topK: 2 })).toHaveLength(
      2,
    );
    expect(await search.search(alice, '   ')).toEqual([]);
  });

  it('filters by type and by tag', async () => {
    const { search } = await setup();
    const query = 'python deploy GPU migration';
    const byType = await search.search(alice, query, { types: ['constraint', 'todo'], topK: 10 });
    expect(new Set(byType.map((hit) => hit.card.type))).toEqual(new Set(['constraint', 'todo']));
    const byTag = await search.search(alice, query, { tags: ['gpu', 'nothing'], topK: 10 });
    expect(contents(byTag)).toEqual(['The team chose an A100 GPU for model training']);
  });

  it('flags hits below the relevance floor as low-confidence, or drops them on request', async () => {
    const { search } = await setup({ mode: 'bm25' });
    const vague =
      'what did the quarterly marketing review say about budgets hiring travel and python';
    const [weak] = await search.search(alice, vague);
    expect(weak?.card.content).toBe('The user prefers Python for scripting tasks');
    expect(weak?.lowConfidence).toBe(true);
    expect(await search.search(alice, vague, { dropLowConfidence: true })).toEqual([]);
    const [strong] = await search.search(alice, 'python scripting');
    expect(strong?.lowConfidence).toBeUndefined();
    // The floor is calibrated on coverage, not on the fused score: the same in hybrid rrf mode.
    const hybrid = await setup({ mode: 'hybrid', fusion: 'rrf', relevanceFloor: 0.5 });
    const hits = await hybrid.search.search(alice, vague, { topK: 10 });
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.every((hit) => hit.lowConfidence === true)).toBe(true);
    expect(() =>
      createMemorySearch({ store: createInMemoryMemoryStore(), relevanceFloor: 2 }),
    ).toThrow(/relevanceFloor must be a number in \[0, 1\]/);
  });

  it('drops hits below minScore', async () => {
    const { search } = await setup({ mode: 'bm25' });
    const all = await search.search(alice, 'python GPU', { topK: 10 });
    expect(all.length).toBe(2);
    const strict = await search.search(alice, 'python GPU', { topK: 10, minScore: 0.9 });
    expect(strict.length).toBeLessThan(all.length);
    for (const hit of strict) expect(hit.score).toBeGreaterThanOrEqual(0.9);
  });

  it('never returns superseded cards', async () => {
    const { store, search } = await setup();
    await search.search(alice, 'python scripting');
    await store.add(alice, [
      { content: 'The user prefers Rust for scripting tasks', type: 'preference' },
    ]);
    const hits = await search.search(alice, 'prefers scripting tasks python rust', { topK: 10 });
    expect(contents(hits)).toContain('The user prefers Rust for scripting tasks');
    expect(contents(hits)).not.toContain('The user prefers Python for scripting tasks');
  });

  it('ignores superseded cards even from a store that lists them', async () => {
    const { store, cards } = await setup();
    const leaky: MemoryStore = {
      ...store,
      list: async (scope) =>
        (await store.list(scope)).map((card) =>
          card.id === cards[0]!.id ? { ...card, supersededBy: 'newer' } : card,
        ),
    };
    const search = createMemorySearch({ store: leaky, embedder: createFixedEmbedder() });
    const hits = await search.search(alice, 'python scripting', { topK: 10 });
    expect(hits.map((hit) => hit.card.id)).not.toContain(cards[0]!.id);
  });

  it('picks up added, changed and removed cards lazily on the next search', async () => {
    const { store, cards, search } = await setup();
    expect(await search.search(alice, 'kubernetes')).toEqual([]);
    await store.add(alice, [{ content: 'The cluster runs on Kubernetes 1.31' }]);
    expect(contents(await search.search(alice, 'kubernetes'))).toEqual([
      'The cluster runs on Kubernetes 1.31',
    ]);
    await store.remove(alice, [cards[1]!.id]);
    const hits = await search.search(alice, 'Fridays deploy', { topK: 10 });
    expect(hits.map((hit) => hit.card.id)).not.toContain(cards[1]!.id);
  });

  it("follows the core stores' change feed: no listing per search, only the changed cards", async () => {
    for (const kind of ['in-memory', 'file'] as const) {
      const root = await mkdtemp(join(tmpdir(), 'ctxmem-search-feed-'));
      try {
        const store =
          kind === 'file' ? createFileMemoryStore({ root }) : createInMemoryMemoryStore();
        await store.add(alice, drafts);
        let listed = 0;
        const list = store.list.bind(store);
        store.list = (scope, options) => {
          listed++;
          return list(scope, options);
        };
        const embedder = createFixedEmbedder({ dimensions: 32 });
        const search = createMemorySearch({ store, embedder });
        expect(contents(await search.search(alice, 'python scripting'))[0]).toMatch(/Python/);
        const embedded = embedder.embeddedTexts;
        await store.add(alice, [
          { content: 'The user prefers Rust for scripting tasks', type: 'preference' },
        ]);
        const hits = await search.search(alice, 'scripting tasks', { topK: 10 });
        // The superseded Python preference is gone, the Rust one found.
        expect(contents(hits), kind).toEqual(['The user prefers Rust for scripting tasks']);
        // Only the new card and the two queries were embedded.
        expect(embedder.embeddedTexts - embedded).toBe(2);
        await store.remove(alice, [hits[0]!.card.id]);
        expect(await search.search(alice, 'scripting tasks')).toEqual([]);
        expect(listed, kind).toBe(0);
        if (kind === 'file') {
          // Another writer (another process) replaces the file: the search reads it again.
          await createFileMemoryStore({ root }).add(alice, [{ content: 'Scripting runs on Deno' }]);
          expect(contents(await search.search(alice, 'scripting deno'))).toEqual([
            'Scripting runs on Deno',
          ]);
        }
      } finally {
        await rm(root, { recursive: true, force: true });
      }
    }
  });

  it('embeds each card once: searching again embeds only the query', async () => {
    const { embedder, search, store } = await setup({ mode: 'hybrid' });
    await search.search(alice, 'python');
    expect(embedder.embeddedTexts).toBe(drafts.length + 1);
    await search.search(alice, 'GPU');
    await search.search(alice, 'deploy', { mode: 'vector' });
    expect(embedder.embeddedTexts).toBe(drafts.length + 3);
    // A new card costs one more embedding, not a re-embedding of everything.
    await store.add(alice, [{ content: 'Standups happen at nine every morning' }]);
    await search.search(alice, 'standup');
    expect(embedder.embeddedTexts).toBe(drafts.length + 3 + 2);
    expect(embedder.calls.at(-2)).toEqual(['Standups happen at nine every morning']);
  });

  it('shares one embedding cache across search instances', async () => {
    const { store } = await setup();
    const embedder = createFixedEmbedder({ dimensions: 32 });
    const embeddingCache = new Map<string, Float32Array>();
    const first = createMemorySearch({ store, embedder, embeddingCache });
    await first.sync(alice);
    expect(embedder.embeddedTexts).toBe(drafts.length);
    const second = createMemorySearch({ store, embedder, embeddingCache });
    const report = await second.sync(alice);
    expect(report).toMatchObject({ cards: drafts.length, added: drafts.length, embedded: 0 });
    expect(embedder.embeddedTexts).toBe(drafts.length);
  });

  it('re-embeds a card whose text changed, under a new cache key', async () => {
    const { cards } = await setup();
    const card = cards[0]!;
    let current: MemoryCard[] = [card];
    const store = listingStore(() => current);
    const embedder = createFixedEmbedder({ dimensions: 32 });
    const search = createMemorySearch({ store, embedder });
    await search.sync(alice);
    current = [{ ...card, content: 'The user prefers Go for scripting tasks' }];
    expect(await search.sync(alice)).toMatchObject({ updated: 1, embedded: 1 });
    expect(embedder.calls.at(-1)).toEqual(['The user prefers Go for scripting tasks\npython']);
    expect(contents(await search.search(alice, 'Go', { mode: 'bm25' }))).toEqual([
      'The user prefers Go for scripting tasks',
    ]);
    // Only metadata changed: no embedding.
    current = [{ ...current[0]!, type: 'fact', updatedAt: '2026-02-01T00:00:00.000Z' }];
    expect(await search.sync(alice)).toMatchObject({ updated: 0, embedded: 0 });
    expect((await search.search(alice, 'Go', { types: ['fact'] }))[0]?.card.type).toBe('fact');
  });

  it('keeps scopes apart: a search never returns another scope’s cards', async () => {
    const word = fc.constantFrom('python', 'rust', 'gpu', 'deploy', 'friday', 'docs', 'team');
    const sentence = fc.array(word, { minLength: 1, maxLength: 5 }).map((words) => words.join(' '));
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ owner: fc.constantFrom('alice', 'bob'), content: sentence }), {
          maxLength: 12,
        }),
        sentence,
        fc.constantFrom('hybrid', 'bm25', 'vector'),
        async (entries, query, mode) => {
          const store = createInMemoryMemoryStore();
          const search = createMemorySearch({ store, embedder: createFixedEmbedder(), mode });
          for (const { owner, content } of entries) {
            await store.add({ userId: owner }, [{ content }]);
          }
          for (const scope of [alice, bob]) {
            const hits = await search.search(scope, query, { topK: 20 });
            const own = new Set((await store.list(scope)).map((card) => card.id));
            for (const hit of hits) {
              expect(own.has(hit.card.id)).toBe(true);
              expect(hit.card.scope).toEqual(scope);
            }
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('keeps scopes apart even when two scopes share card ids and one index', async () => {
    const store = listingStore(() => [
      makeCard('same-id', 'alice likes tea'),
      makeCard('same-id', 'bob likes coffee', { scope: bob }),
    ]);
    const search = createMemorySearch({ store, embedder: createFixedEmbedder(), mode: 'vector' });
    await search.sync(alice);
    await search.sync(bob);
    for (const [scope, owner] of [
      [alice, 'alice'],
      [bob, 'bob'],
    ] as const) {
      for (const hit of await search.search(scope, 'alice bob tea coffee likes')) {
        expect(hit.card.content.startsWith(owner)).toBe(true);
      }
    }
  });

  it('falls back to BM25 when the embedder fails, reports it, and recovers', async () => {
    let time = 1_000_000;
    const { embedder, search, events } = await setup({ mode: 'hybrid', now: () => time });
    embedder.behavior = 'fail';
    const { hits, report } = await search.searchWithReport(alice, 'GPU training');
    expect(contents(hits)[0]).toBe('The team chose an A100 GPU for model training');
    expect(hits[0]!.vector).toBeUndefined();
    expect(hits.every((hit) => hit.keywordOnly === true)).toBe(true);
    expect(report).toMatchObject({
      mode: 'hybrid',
      usedMode: 'bm25',
      fallback: { reason: 'error', message: 'fake embedder failure' },
    });
    expect(events).toEqual([
      {
        type: 'retrieval-fallback',
        scope: alice,
        from: 'hybrid',
        to: 'bm25',
        reason: 'error',
        message: 'fake embedder failure',
      },
    ]);
    embedder.behavior = 'ok';
    // Within embedderRetryMs the embedder is left alone: no call, no re-embedding per search.
    const calls = embedder.calls.length;
    const paused = await search.searchWithReport(alice, 'GPU training');
    expect(paused.report.fallback).toEqual({ reason: 'error', message: 'fake embedder failure' });
    expect(paused.hits[0]!.keywordOnly).toBe(true);
    expect(embedder.calls).toHaveLength(calls);
    expect(events).toHaveLength(2);
    time += 30_000;
    const recovered = await search.searchWithReport(alice, 'GPU training');
    expect(recovered.report.usedMode).toBe('hybrid');
    expect(recovered.hits[0]!.vector).toBeGreaterThan(0);
    expect(recovered.hits[0]!.keywordOnly).toBeUndefined();
  });

  it('throws EmbedderDimensionError at first use, naming both dimensions, and never re-embeds', async () => {
    const store = createInMemoryMemoryStore();
    await store.add(alice, drafts);
    const embedder = createFixedEmbedder({ dimensions: 16 });
    // Declares 32 dimensions, returns 16.
    const lying = { ...embedder, id: 'lying', dimensions: 32, embed: embedder.embed };
    const search = createMemorySearch({ store, embedder: lying });
    const error = await search.search(alice, 'python').catch((caught: unknown) => caught);
    expect(EmbedderDimensionError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ embedderId: 'lying', expected: 32, actual: 16 });
    expect((error as Error).message).toMatch(/declares 32 dimensions but returned a vector of 16/);
    const calls = embedder.calls.length;
    const again = await search.search(alice, 'python').catch((caught: unknown) => caught);
    expect(EmbedderDimensionError.isInstance(again)).toBe(true);
    await expect(search.sync(alice)).rejects.toMatchObject({ expected: 32, actual: 16 });
    expect(embedder.calls).toHaveLength(calls);
  });

  it('throws EmbedderDimensionError for a query vector of the wrong length too', async () => {
    const store = createInMemoryMemoryStore();
    const embedder = createFixedEmbedder({ dimensions: 8 });
    const search = createMemorySearch({
      store,
      embedder: { id: 'short-queries', dimensions: 8, embed: async () => [new Float32Array(4)] },
    });
    await store.add(alice, [drafts[0]!]);
    await expect(search.search(alice, 'python')).rejects.toMatchObject({
      name: 'CtxmemEmbedderDimensionError',
      expected: 8,
      actual: 4,
    });
    expect(embedder.calls).toHaveLength(0);
  });

  it('falls back in vector mode too, and sync reports the failure without throwing', async () => {
    const { embedder, search } = await setup({ mode: 'vector' });
    embedder.behavior = 'fail';
    const { hits, report } = await search.searchWithReport(alice, 'python');
    expect(report.usedMode).toBe('bm25');
    expect(contents(hits)).toEqual(['The user prefers Python for scripting tasks']);
    expect(await search.sync(alice)).toMatchObject({ vectorError: 'fake embedder failure' });
  });

  it('treats malformed embedder output as a failure', async () => {
    const store = createInMemoryMemoryStore();
    await store.add(alice, drafts);
    const search = createMemorySearch({
      store,
      embedder: { id: 'broken', dimensions: 4, embed: async () => [new Float32Array(4)] },
    });
    const { report } = await search.searchWithReport(alice, 'python');
    expect(report.fallback?.reason).toBe('error');
  });

  it('answers from BM25 when the embedder is slower than timeoutMs', async () => {
    const { embedder, search, events } = await setup({ mode: 'hybrid', timeoutMs: 30 });
    embedder.behavior = 'hang';
    const started = Date.now();
    const { hits, report } = await search.searchWithReport(alice, 'python');
    expect(Date.now() - started).toBeLessThan(2000);
    expect(report.fallback?.reason).toBe('timeout');
    expect(events[0]?.reason).toBe('timeout');
    expect(contents(hits)).toEqual(['The user prefers Python for scripting tasks']);
  });

  it('lets slow background embedding finish for the next search', async () => {
    const store = createInMemoryMemoryStore();
    await store.add(alice, drafts);
    const embedder = createFixedEmbedder({ dimensions: 32, delayMs: 80 });
    const search = createMemorySearch({ store, embedder, timeoutMs: 20 });
    const first = await search.searchWithReport(alice, 'python');
    expect(first.report.fallback?.reason).toBe('timeout');
    await new Promise((resolve) => setTimeout(resolve, 200));
    // The card batch finished in the background although the search stopped waiting.
    expect(embedder.embeddedTexts).toBe(drafts.length);
    embedder.delayMs = 0;
    const second = await search.searchWithReport(alice, 'python');
    expect(second.report.usedMode).toBe('hybrid');
    expect(embedder.calls.at(-1)).toEqual(['python']);
    expect(embedder.embeddedTexts).toBe(drafts.length + 1);
  });

  it('throws when the caller aborts, instead of falling back', async () => {
    const { embedder, search } = await setup({ timeoutMs: 5000 });
    embedder.behavior = 'hang';
    const controller = new AbortController();
    const pending = search.search(alice, 'python', { abortSignal: controller.signal });
    setTimeout(() => controller.abort(new Error('caller gave up')), 10);
    await expect(pending).rejects.toThrow('caller gave up');
    const aborted = new AbortController();
    aborted.abort(new Error('already'));
    await expect(search.search(alice, 'x', { abortSignal: aborted.signal })).rejects.toThrow(
      'already',
    );
  });

  it('boosts recent cards with recencyHalfLifeDays', async () => {
    const clock = createFakeClock('2026-01-01T00:00:00.000Z');
    const store = createInMemoryMemoryStore({ clock });
    await store.add(alice, [{ content: 'Book the lunch place for Monday', type: 'todo' }]);
    clock.advance(60 * 86_400_000);
    await store.add(alice, [{ content: 'Book the lunch place for Friday', type: 'todo' }]);
    const search = createMemorySearch({
      store,
      mode: 'bm25',
      now: () => clock.now(),
    });
    const query = 'lunch place';
    const plain = await search.search(alice, query);
    expect(plain[0]!.score).toBeCloseTo(plain[1]!.score, 5);
    const recent = await search.search(alice, query, { recencyHalfLifeDays: 30 });
    expect(recent[0]!.card.content).toBe('Book the lunch place for Friday');
    expect(recent[1]!.score).toBeCloseTo(recent[0]!.score / 4, 5);
  });

  it('multiplies scores by typeBoosts', async () => {
    const { search } = await setup({ mode: 'bm25' });
    const query = 'user team';
    const plain = await search.search(alice, query, { topK: 10 });
    expect(plain[0]!.card.type).not.toBe('decision');
    const boosted = await search.search(alice, query, { topK: 10, typeBoosts: { decision: 10 } });
    expect(boosted[0]!.card.type).toBe('decision');
  });

  it('with mmr, lets a different card past near duplicates', async () => {
    const cards = [
      makeCard('1', 'Deploys go through the staging cluster first'),
      makeCard('2', 'Deploys go through the staging cluster first, always'),
      makeCard('3', 'Deploys go through the staging cluster first, no exceptions'),
      makeCard('4', 'Deploys need a second reviewer'),
    ];
    const store = listingStore(() => cards);
    for (const mode of ['bm25', 'hybrid'] as const) {
      const search = createMemorySearch({
        store,
        mode,
        embedder: createFixedEmbedder({ dimensions: 64 }),
      });
      const query = 'deploys staging cluster';
      const plain = await search.search(alice, query, { topK: 2 });
      expect(contents(plain)).not.toContain('Deploys need a second reviewer');
      const diverse = await search.search(alice, query, { topK: 2, mmr: { lambda: 0.2 } });
      expect(contents(diverse)).toContain('Deploys need a second reviewer');
    }
  });

  it('uses the index it is given', async () => {
    const { store } = await setup();
    const index = createBruteForceIndex({ dimensions: 32 });
    const search = createMemorySearch({
      store,
      index,
      embedder: createFixedEmbedder({ dimensions: 32 }),
    });
    await search.search(alice, 'python');
    expect(index.size()).toBe(drafts.length);
    const removed = (await store.list(alice))[0]!;
    await store.remove(alice, [removed.id]);
    await search.search(alice, 'python');
    expect(index.size()).toBe(drafts.length - 1);
  });

  it('is a MemorySearcher for injection and the search_memory tool', async () => {
    const { search } = await setup();
    const searcher: MemorySearcher = search;
    const hits = await searcher.search(alice, 'python', { topK: 1, minScore: 0 });
    expect(hits).toHaveLength(1);
  });

  it('rejects bad options with InvalidArgumentError', async () => {
    const { store, search } = await setup();
    const embedder = createFixedEmbedder({ dimensions: 8 });
    for (const options of [
      { mode: 'semantic' as never },
      { fusion: 'max' as never },
      { candidates: 0 },
      { timeoutMs: 0 },
      { weights: { bm25: -1, vector: 1 } },
      { bm25: { b: 2 } },
      { index: createBruteForceIndex({ dimensions: 16 }) },
    ]) {
      const error = thrown(() => createMemorySearch({ store, embedder, ...options }));
      expect(InvalidArgumentError.isInstance(error)).toBe(true);
    }
    for (const options of [
      { topK: 0 },
      { topK: 1.5 },
      { minScore: Number.NaN },
      { mmr: { lambda: 2 } },
      { recencyHalfLifeDays: 0 },
      { typeBoosts: { fact: -1 } },
      { mode: 'other' as never },
    ]) {
      const error = await search.search(alice, 'python', options).catch((caught) => caught);
      expect(InvalidArgumentError.isInstance(error)).toBe(true);
    }
  });

  describe('sequenceContext', () => {
    /** A transcript: one episode per turn, a minute apart, listed in the order given. */
    function transcript(
      turns: string[],
      order: number[] = turns.map((_, position) => position),
      type: MemoryCard['type'] = 'episode',
    ) {
      const cards = turns.map((content, position) =>
        makeCard(`t${position}`, content, {
          type,
          createdAt: new Date(Date.UTC(2026, 0, 1, 0, position)).toISOString(),
        }),
      );
      return order.map((position) => cards[position]!);
    }
    const turns = [
      'Have you seen the new bakery downtown?',
      'How long have you lived in Porto?',
      'Six years now, it flew by!',
      'Wow, congratulations to both of you.',
      'Thanks, we are planning a trip to celebrate.',
    ];
    // Only the second turn shares a word with the question.
    const query = 'How long have they lived in Porto?';

    it('is on by default for episodes only: the same turns as facts pass nothing on', async () => {
      const ordered = turns.map((_, position) => position);
      for (const [type, found] of [
        ['episode', true],
        ['fact', false],
      ] as const) {
        const search = createMemorySearch({
          store: listingStore(() => transcript(turns, ordered, type)),
          mode: 'bm25',
        });
        const hits = await search.search(alice, query, { topK: 5 });
        expect(contents(hits).includes(turns[2]!), type).toBe(found);
        expect(
          hits.some((hit) => hit.context !== undefined),
          type,
        ).toBe(found);
      }
      const off = createMemorySearch({
        store: listingStore(() => transcript(turns)),
        mode: 'bm25',
        sequenceContext: false,
      });
      expect(contents(await off.search(alice, query, { topK: 5 }))).not.toContain(turns[2]);
    });

    it('makes a sequence of the types it is given', async () => {
      const ordered = turns.map((_, position) => position);
      const search = createMemorySearch({
        store: listingStore(() => transcript(turns, ordered, 'fact')),
        mode: 'bm25',
        sequenceContext: { types: ['fact'] },
      });
      expect(contents(await search.search(alice, query, { topK: 5 }))).toContain(turns[2]);
    });

    it.each(['bm25', 'hybrid'] as const)(
      'finds the answer after the matching turn, with weight ^ distance of its score (%s)',
      async (mode) => {
        const search = createMemorySearch({
          store: listingStore(() => transcript(turns)),
          mode,
          embedder: createFixedEmbedder({ dimensions: 32 }),
          // The matching turn asks: with questionWeight equal to weight it passes on the same.
          sequenceContext: { weight: 0.5, questionWeight: 0.5, window: 2 },
          // The query asks how long: without dates, no time-question boost changes the arithmetic.
          dates: false,
        });
        const hits = await search.search(alice, query, { topK: 5 });
        const byId = new Map(hits.map((hit) => [hit.card.id, hit]));
        const question = byId.get('t1')!;
        const answer = byId.get('t2')!;
        const reply = byId.get('t3')!;
        expect(answer.context).toBeGreaterThan(0);
        expect(reply.context).toBeGreaterThan(0);
        if (mode === 'bm25') {
          // Only the question matched, so the next turns get exactly a half and a quarter of it.
          expect(answer.score).toBeCloseTo(question.score / 2, 10);
          expect(reply.score).toBeCloseTo(question.score / 4, 10);
          // The turn three places later is out of the window; the turn before gets the default
          // backward weight of a semantic embedder, 0.2, of it.
          expect(byId.has('t4')).toBe(false);
          expect(byId.get('t0')?.context).toBeCloseTo(question.score * 0.2, 10);
        }
      },
    );

    it('orders cards by createdAt, not by the order the store lists them in', async () => {
      const store = listingStore(() => transcript(turns, [4, 2, 0, 3, 1]));
      const search = createMemorySearch({ store, mode: 'bm25', sequenceContext: { window: 1 } });
      const hits = await search.search(alice, query, { topK: 5 });
      expect(contents(hits).slice(0, 2)).toEqual([turns[1], turns[2]]);
    });

    it('follows cards added later, and skips neighbours the filters exclude', async () => {
      let cards = transcript(turns.slice(0, 2));
      const search = createMemorySearch({
        store: listingStore(() => cards),
        mode: 'bm25',
        sequenceContext: {},
      });
      expect(contents(await search.search(alice, query))).not.toContain(turns[2]);
      cards = transcript(turns);
      expect(contents(await search.search(alice, query))).toContain(turns[2]);
      // A neighbour the filter excludes is not returned, and does not close the gap it leaves.
      cards = cards.map((card) => (card.id === 't2' ? card : { ...card, tags: ['kept'] }));
      const kept = await search.search(alice, query, { tags: ['kept'] });
      expect(contents(kept)).not.toContain(turns[2]);
      expect(contents(kept)).toContain(turns[3]);
    });

    it('rejects a weight outside (0, 1], a backward weight outside [0, 1], a window that is not a positive integer, a negative speaker boost and unknown types', () => {
      const store = listingStore(() => []);
      for (const sequenceContext of [
        { weight: 0 },
        { weight: 1.5 },
        { weight: Number.NaN },
        { window: 0 },
        { window: 1.5 },
        { backwardWeight: -0.5 },
        { backwardWeight: 2 },
        { speakerBoost: -1 },
        { speakerBoost: Number.POSITIVE_INFINITY },
        { types: ['opinion' as never] },
        { types: 'episode' as never },
      ]) {
        const error = thrown(() => createMemorySearch({ store, sequenceContext }));
        expect(InvalidArgumentError.isInstance(error)).toBe(true);
      }
    });
  });

  it('forgets its index state on clear and rebuilds it from the store', async () => {
    const { search, embedder } = await setup();
    await search.search(alice, 'python');
    search.clear();
    const before = embedder.embeddedTexts;
    expect(contents(await search.search(alice, 'python'))[0]).toBe(
      'The user prefers Python for scripting tasks',
    );
    // The embedding cache survives clear(): only the query is embedded again.
    expect(embedder.embeddedTexts).toBe(before + 1);
  });
});

describe('createMemorySearch maxScopes', () => {
  it('rejects a cap that is not a positive integer', () => {
    const store = createInMemoryMemoryStore();
    expect(() => createMemorySearch({ store, maxScopes: 0 })).toThrow(InvalidArgumentError);
    expect(() => createMemorySearch({ store, maxScopes: 1.5 })).toThrow(InvalidArgumentError);
  });

  it('rebuilds an evicted scope from the store on its next search', async () => {
    const store = createInMemoryMemoryStore();
    await store.add({ userId: 'a' }, [{ content: 'Alice deploys on Kubernetes' }]);
    await store.add({ userId: 'b' }, [{ content: 'Bob deploys on Nomad' }]);
    const search = createMemorySearch({ store, maxScopes: 1, mode: 'bm25' });
    expect((await search.search({ userId: 'a' }, 'deploys'))[0]?.card.content).toBe(
      'Alice deploys on Kubernetes',
    );
    expect((await search.search({ userId: 'b' }, 'deploys'))[0]?.card.content).toBe(
      'Bob deploys on Nomad',
    );
    expect(
      (await search.search({ userId: 'a' }, 'deploys')).map((hit) => hit.card.content),
    ).toEqual(['Alice deploys on Kubernetes']);
  });
});

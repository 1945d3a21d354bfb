/**
 * Concurrency and bounded memory: many sessions compacting at once in one process never mix
 * their content; many writers (tasks, store instances, processes) on one memory store lose and
 * duplicate nothing; and a context manager serving thousands of sessions keeps a bounded amount
 * of state. `CTXMEM_LONG_TESTS=1` runs the 10,000-session variants.
 */
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import {
  type CompleteRequest,
  createContextManager,
  createFileHistoryStore,
  createFileMemoryStore,
  createFileOffloadStore,
  createMemorySearch,
  createModelSummarizer,
  createTokenCounter,
  type MemoryCard,
  type MemoryStore,
  type Message,
  type Scope,
  type Summarizer,
  scopeKey,
} from '@ctxmem/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledFixture } from '../setup/fixture-bundle.js';
import { releaseTogether, startWriter } from '../setup/writer-process.js';
import {
  distinctCardContent,
  expectValidPrompt,
  LONG_TESTS,
  markedConversation,
  markedRound,
  temporaryFolder,
  textOf,
  WORKER_SCOPE,
} from './helpers.js';

const counter = createTokenCounter();
let folder: { path: string; remove: () => Promise<void> };
let rootCount = 0;
const nextRoot = () => join(folder.path, `root-${++rootCount}`);

beforeAll(async () => {
  folder = await temporaryFolder('concurrency');
});
afterAll(async () => {
  await folder.remove();
});

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

// ---------------------------------------------------------------------------------------------

/**
 * A model that summarizes by echoing every session marker it sees in its prompt, after a random
 * delay: if prompts of different sessions were ever mixed, a marker would travel to a summary
 * (and so into a prompt) of the wrong session.
 */
function echoingModel() {
  return async (request: CompleteRequest): Promise<string> => {
    await sleep(Math.random() * 8);
    const markers = [...new Set(request.prompt.match(/sess\d+x/g) ?? [])];
    return JSON.stringify({
      summary: { goal: [`Continue the work of ${markers.join(' and ') || 'nobody'}.`] },
      memories: markers.map((marker) => ({
        content: `Session ${marker} was summarized.`,
        type: 'fact',
      })),
    });
  };
}

describe('many sessions compacting at once', () => {
  for (const backgroundCompaction of [false, true]) {
    // Protection: per-session state keyed by scope (the session LRU, the per-key mutex, the
    // scope in every store key), and summaries built from one session's messages only. Share
    // any of them and a foreign marker appears in a prompt or a stored card.
    it(`keeps 30 concurrent sessions apart over 3 growing turns (background compaction ${backgroundCompaction ? 'on' : 'off'})`, async () => {
      const root = nextRoot();
      const memory = createFileMemoryStore({ root });
      const manager = createContextManager({
        contextWindow: 3_000,
        counter,
        backgroundCompaction,
        summarizer: createModelSummarizer({ complete: echoingModel(), counter }),
        historyStore: createFileHistoryStore({ root }),
        offloadStore: createFileOffloadStore({ root }),
        memory: { store: memory, search: createMemorySearch({ store: memory }), minScore: 0 },
      });
      const sessions = Array.from({ length: 30 }, (_, index) => ({
        marker: `sess${index}x`,
        // Half the sessions belong to one user, so that memory scopes are shared where they may be.
        scope:
          index % 2 === 0 ? { sessionId: `s${index}` } : { userId: `u${index}`, sessionId: 's' },
      }));
      const histories = new Map(
        sessions.map(({ marker }) => [marker, markedConversation(marker, 10)]),
      );

      for (let turn = 0; turn < 3; turn++) {
        const results = await Promise.all(
          sessions.map(async ({ marker, scope }) => {
            await sleep(Math.random() * 5);
            const history = histories.get(marker)!;
            const prepared = await manager.prepare(history, { scope });
            return { marker, history, prepared, budget: manager.budget.budgetTokens };
          }),
        );
        for (const { marker, history, prepared, budget } of results) {
          expectValidPrompt(prepared.messages, history, { budgetTokens: budget, counter });
          const foreign = (textOf(prepared.messages).match(/sess\d+x/g) ?? []).filter(
            (found) => found !== marker,
          );
          expect(foreign, `prompt of ${marker}`).toEqual([]);
          // The next turn: the answer, a new round and a new question.
          histories.set(marker, [
            ...history,
            { role: 'assistant', content: `${marker} answer to turn ${turn}.` },
            ...markedRound(marker, 20 + turn),
            { role: 'user', content: `${marker} question ${turn}?` },
          ]);
        }
      }
      await manager.idle();
      for (const { marker, scope } of sessions) {
        const history = createFileHistoryStore({ root });
        const stored = await history.read(scope);
        expect(
          textOf(stored)
            .match(/sess\d+x/g)!
            .every((found) => found === marker),
        ).toBe(true);
        const memoryScope: Scope = 'userId' in scope ? { userId: scope.userId } : scope;
        const cards = await memory.list(memoryScope);
        expect(cards.every((card) => card.content.includes(marker))).toBe(true);
      }
    });
  }
});

// ---------------------------------------------------------------------------------------------

const scope: Scope = { userId: 'writers', sessionId: 'one' };

function expectAllCards(cards: readonly MemoryCard[], labels: readonly string[], count: number) {
  const contents = cards.map((card) => card.content);
  expect(new Set(contents).size).toBe(contents.length);
  expect(
    contents.filter((content) => content === 'Every writer shares this one fact.'),
  ).toHaveLength(1);
  for (const label of labels) {
    for (let index = 0; index < count; index++) {
      expect(contents).toContain(distinctCardContent(label, index));
    }
  }
  expect(contents).toHaveLength(labels.length * count + 1);
  expect(new Set(cards.map((card) => card.id)).size).toBe(cards.length);
}

describe('many writers on one memory store', () => {
  // Protection: the cross-process file lock around every change of the cards log, with
  // de-duplication under it. Without the lock, concurrent adds from separate store instances
  // overwrite each other's cards (lost updates) or both add the shared card (duplicates).
  it('loses and duplicates nothing with 4 store instances and 60 concurrent adds', async () => {
    const root = nextRoot();
    const stores = Array.from({ length: 4 }, () => createFileMemoryStore({ root }));
    const labels = ['a', 'b', 'c', 'd'];
    await Promise.all(
      labels.flatMap((label, writer) =>
        Array.from({ length: 15 }, (_, index) =>
          stores[writer]!.add(scope, [
            { content: distinctCardContent(label, index) },
            { content: 'Every writer shares this one fact.' },
          ]),
        ),
      ),
    );
    for (const store of stores) expectAllCards(await store.list(scope), labels, 15);
  });

  // Same protection across real processes.
  it('loses and duplicates nothing with 3 processes adding at the same moment', async () => {
    const root = nextRoot();
    const labels = ['p1', 'p2', 'p3'];
    const workers = labels.map((label) => startWorker({ mode: 'cards', root, label, count: 15 }));
    await releaseTogether(workers);
    await Promise.all(workers.map((worker) => worker.waitFor('done')));
    expectAllCards(await createFileMemoryStore({ root }).list(WORKER_SCOPE), labels, 15);
  });
});

// ---------------------------------------------------------------------------------------------

// Bundled once (test/setup/fixture-bundle.ts): plain `node` starts it far faster than tsx.
const worker = await bundledFixture(new URL('./fixtures/reliability-worker.ts', import.meta.url));
const startWorker = (job: Record<string, unknown>) => startWriter(worker, job);

describe('a context manager killed mid-compaction', () => {
  const workerScope: Scope = WORKER_SCOPE;

  // Protection: the history is appended (and fsynced) before any compaction starts, and the
  // working state is replaced atomically. A SIGKILL during a summary therefore loses no
  // acknowledged message, leaves no duplicate, and a new process carries on from the files.
  it('reloads a complete history and carries on after SIGKILL during summaries', async () => {
    for (let iteration = 0; iteration < (LONG_TESTS ? 10 : 1); iteration++) {
      const root = nextRoot();
      const child = startWorker({ mode: 'manager', root, turns: 40 });
      // Let a few compactions happen, then kill inside the next summary.
      await child.waitFor(/^ack /);
      const summaries = 2 + iteration;
      for (let seen = 0; seen < summaries; seen++) {
        const before = child.lines.filter((line) => line === 'summarizing').length;
        await new Promise<void>((resolve) => {
          const timer = setInterval(() => {
            if (child.lines.filter((line) => line === 'summarizing').length > before) {
              clearInterval(timer);
              resolve();
            }
          }, 2);
        });
      }
      child.child.kill('SIGKILL');
      await child.exited;

      const acknowledged = Math.max(
        ...child.lines
          .filter((line) => line.startsWith('ack '))
          .map((line) => Number(line.slice(4))),
      );
      const historyStore = createFileHistoryStore({ root });
      const stored = await historyStore.read(workerScope);
      expect(stored.length).toBeGreaterThanOrEqual(acknowledged);
      // Exactly the conversation the worker built, in order, once.
      const expected: Message[] = [{ role: 'system', content: 'You are a careful assistant.' }];
      for (let turn = 1; expected.length < stored.length; turn++)
        expected.push(...markedRound('worker', turn, 30));
      expect(stored.map(({ message: { id: _id, ...message } }) => message)).toEqual(
        expected.slice(0, stored.length),
      );
      expect(stored.map((entry) => entry.index)).toEqual(stored.map((_, index) => index));
      await historyStore.getState(workerScope);

      // A new process carries on from the files.
      const manager = createContextManager({
        contextWindow: 3_000,
        counter,
        historyStore,
        offloadStore: createFileOffloadStore({ root }),
      });
      const next = [
        ...expected.slice(0, stored.length),
        { role: 'user' as const, content: 'worker resumed?' },
      ];
      const prepared = await manager.prepare(next, { scope: workerScope });
      expectValidPrompt(prepared.messages, next, {
        budgetTokens: manager.budget.budgetTokens,
        counter,
      });
      expect(await historyStore.count(workerScope)).toBe(next.length);
    }
  });
});

// ---------------------------------------------------------------------------------------------

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** Heap in use after full collections, in megabytes. */
function settledHeap(): number {
  collectGarbage();
  collectGarbage();
  return process.memoryUsage().heapUsed / 1e6;
}

const sections = {
  goal: ['Keep going.'],
  background: [],
  keyFacts: [],
  constraints: [],
  decisions: [],
  todos: [],
  snippets: [],
};
/** A summarizer that costs nothing, so these tests measure state, not summarizing. */
const instantSummarizer: Summarizer = {
  name: 'instant',
  summarize: async () => ({ summary: { sections }, cards: [], calls: 0 }),
};
/**
 * Linear in text length and cheap, for the same reason; without its (bounded) content cache, so
 * that the cache filling up is not mistaken for session state.
 */
const cheapCounter = () =>
  createTokenCounter({ countText: (text) => Math.ceil(text.length / 4), cacheSize: 0 });

/** Heap growth between session `warmUp` and session `total`, each session compacting once. */
async function sessionHeapGrowth(cacheSize: number, warmUp: number, total: number) {
  const manager = createContextManager({
    contextWindow: 8_000,
    cacheSize,
    counter: cheapCounter(),
    summarizer: instantSummarizer,
  });
  let base = 0;
  let compacted = 0;
  for (let session = 0; session < total; session++) {
    if (session === warmUp) base = settledHeap();
    const prepared = await manager.prepare(markedConversation(`m${session}`, 6, 300), {
      scope: { sessionId: `s${session}` },
    });
    if (prepared.compacted) compacted++;
  }
  const growth = settledHeap() - base;
  return { growth, compacted, rss: process.memoryUsage().rss / 1e6 };
}

describe('bounded memory', () => {
  const total = LONG_TESTS ? 10_000 : 800;

  // Protection: the session LRU (`cacheSize`). Without it every session's compacted state stays
  // in memory forever. The check is relative: the same run with an unbounded cache is the
  // control that shows the measurement can see retained sessions at all.
  it(`keeps the state of ${total} compacting sessions bounded by cacheSize`, async () => {
    const bounded = await sessionHeapGrowth(50, 200, total);
    const unbounded = await sessionHeapGrowth(1_000_000, 200, total);
    expect(bounded.compacted).toBe(total);
    expect(unbounded.compacted).toBe(total);
    console.info(
      `${total} sessions: heap growth ${bounded.growth.toFixed(1)} MB with cacheSize 50, ` +
        `${unbounded.growth.toFixed(1)} MB unbounded; RSS ${bounded.rss.toFixed(0)} MB`,
    );
    expect(unbounded.growth).toBeGreaterThan(5);
    expect(bounded.growth).toBeLessThan(unbounded.growth / 4);
  });

  // Protection: createMemorySearch keeps its per-scope indexes in an LRU (`maxScopes`) and its
  // embeddings in a bounded cache; without them a server with many users grows without bound.
  // The store below keeps nothing, so all growth is the search's own.
  it('keeps the memory search’s per-scope state bounded', async () => {
    const generatedStore: MemoryStore = {
      add: async () => [],
      get: async () => {
        throw new Error('unused');
      },
      remove: async () => {},
      list: async (cardScope) =>
        Array.from({ length: 20 }, (_, index) => ({
          id: `${scopeKey(cardScope)}-${index}`,
          content: `Card ${index} of ${cardScope.userId}: prefers topic ${index * 7} on deploys.`,
          type: 'fact' as const,
          tags: [],
          createdAt: '2026-01-01T00:00:00.000Z',
          updatedAt: '2026-01-01T00:00:00.000Z',
          scope: cardScope,
        })),
    };
    // BM25 only: vectors live in the MemoryIndex, which holds one per stored card by design (it
    // grows with the data, like the store); what must stay bounded is the per-scope search state.
    const search = createMemorySearch({ store: generatedStore, maxScopes: 10, mode: 'bm25' });
    const users = 350;
    let base = 0;
    for (let user = 0; user < users; user++) {
      if (user === 50) base = settledHeap();
      await search.search({ userId: `user${user}` }, 'which topic on deploys');
    }
    // Unbounded it grew about 14 MB (48 KB per scope of 20 cards); bounded it stays below 1 MB.
    expect(settledHeap() - base).toBeLessThan(1);
  });
});

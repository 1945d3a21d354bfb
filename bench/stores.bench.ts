/**
 * Latency of the stores: memory cards (add with de-duplication, list), the append-only history,
 * offloads and the cross-process file lock, in memory and on disk (the OS temp folder, with fsync).
 * Medians of repeated single operations on a store that already holds the given amount of data.
 * Add throughput is measured in `memory-add-throughput.ts`, the search of a new process in
 * `memory-cold-start.ts`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  HistoryStore,
  MemoryIndex,
  MemoryStore,
  Message,
} from '../packages/core/src/contracts/index.js';
import {
  countHistory,
  createFileHistoryStore,
  createInMemoryHistoryStore,
} from '../packages/core/src/history/index.js';
import {
  createFileMemoryStore,
  createInMemoryMemoryStore,
} from '../packages/core/src/memory/index.js';
import {
  createFileOffloadStore,
  createInMemoryOffloadStore,
} from '../packages/core/src/offload/index.js';
import {
  createBruteForceIndex,
  createMemorySearch,
  type RetrievalMode,
} from '../packages/core/src/retrieval/index.js';
import { withFileLock } from '../packages/core/src/storage/index.js';
import { createHnswMemoryIndex } from '../packages/hnswlib/src/index.js';
import { ms, percentileOf } from './latency.js';
import { addThroughputSection } from './memory-add-throughput.js';
import { coldStartSections } from './memory-cold-start.js';
import { BATCH, drafts, historyMessage, scope, sentence } from './store-sentences.js';
import type { BenchRun, BenchSection } from './types.js';

async function median(
  repeats: number,
  operation: (index: number) => Promise<unknown>,
): Promise<number> {
  const times: number[] = [];
  for (let index = 0; index < repeats; index++) {
    const start = performance.now();
    await operation(index);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

async function memorySection(
  root: string,
  sizes: number[],
  repeats: number,
): Promise<BenchSection> {
  const rows: BenchSection['rows'] = [];
  for (const [name, create] of [
    ['in-memory', () => createInMemoryMemoryStore()],
    ['file', () => createFileMemoryStore({ root: join(root, `memory-${Math.random()}`) })],
  ] as Array<[string, () => MemoryStore]>) {
    for (const size of sizes) {
      const store = create();
      for (let start = 0; start < size; start += 250) {
        const count = Math.min(250, size - start);
        await store.add(
          scope,
          Array.from({ length: count }, (_, offset) => ({
            content: sentence(start + offset),
            type: 'todo' as const,
          })),
        );
      }
      const add = await median(repeats, (index) =>
        store.add(scope, [{ content: sentence(1_000_000 + index), type: 'todo' }]),
      );
      const duplicate = await median(repeats, (index) =>
        store.add(scope, [{ content: sentence(index % size), type: 'todo' }]),
      );
      const list = await median(repeats, () => store.list(scope));
      rows.push({
        store: name,
        'cards in scope': size,
        'add new card (ms)': ms(add),
        'add duplicate (ms)': ms(duplicate),
        'list (ms)': ms(list),
      });
    }
  }
  return {
    title: 'Memory store: add (de-duplicated against every current card) and list',
    rows,
    notes: [
      'File store: one append-only log (cards.jsonl) per scope; an add takes the file lock, reads what other processes appended since, merges through the card index and appends one line with an fsync; a duplicate needs no write.',
    ],
  };
}

async function searchSection(
  root: string,
  sizes: number[],
  queries: number,
): Promise<BenchSection> {
  const rows: BenchSection['rows'] = [];
  const bruteForce = () => createBruteForceIndex({ dimensions: 384 });
  const hnsw = () =>
    createHnswMemoryIndex({ dimensions: 384, path: join(root, `${Math.random()}.hnsw`) });
  // The brute-force index behind a plain object: memory search cannot score a candidate set on
  // it, so every search scans every vector (what it did before).
  const fullScan = (): MemoryIndex => {
    const inner = bruteForce();
    return {
      dimensions: inner.dimensions,
      upsert: (items) => inner.upsert(items),
      remove: (ids) => inner.remove(ids),
      query: (vector, options) => inner.query(vector, options),
      size: () => inner.size(),
    };
  };
  // HNSW only at the smaller size: building its graph for 100,000 cards takes minutes.
  for (const [name, mode, createIndex, variantSizes] of [
    ['hybrid, brute-force vectors (default)', 'hybrid', bruteForce, sizes],
    ['baseline: hybrid, every vector scanned per search', 'hybrid', fullScan, sizes],
    ['BM25 only', 'bm25', bruteForce, sizes],
    ['hybrid, HNSW vectors (@ctxmem/hnswlib)', 'hybrid', hnsw, sizes.slice(0, 1)],
  ] as Array<[string, RetrievalMode, () => MemoryIndex | Promise<MemoryIndex>, number[]]>)
    for (const size of variantSizes) {
      const store = createInMemoryMemoryStore();
      for (let start = 0; start < size; start += BATCH) {
        await store.add(scope, drafts(start, Math.min(BATCH, size - start)));
      }
      const index = await createIndex();
      const search = createMemorySearch({
        store,
        index,
        mode,
        timeoutMs: 60_000,
      });
      const buildStart = performance.now();
      await search.sync(scope);
      const build = performance.now() - buildStart;
      const times: number[] = [];
      const afterAdd: number[] = [];
      // Warm-up (JIT, scratch buffers), outside the measurement.
      for (let index = 0; index < 5; index++) {
        await search.search(scope, sentence(index).split(' ').slice(2, 5).join(' '), { topK: 5 });
      }
      for (let index = 0; index < queries; index++) {
        // A query of three words of one card: common words, so BM25 touches thousands of cards.
        const words = sentence(index * 7919)
          .split(' ')
          .slice(2, 5)
          .join(' ');
        const start = performance.now();
        await search.search(scope, `${words} ${index}`, { topK: 5 });
        times.push(performance.now() - start);
        await store.add(scope, [{ content: sentence(size + index) }]);
        const addedStart = performance.now();
        await search.search(scope, words, { topK: 5 });
        afterAdd.push(performance.now() - addedStart);
      }
      times.sort((left, right) => left - right);
      afterAdd.sort((left, right) => left - right);
      rows.push({
        retrieval: name,
        'cards in scope': size,
        'first sync: index + embed (ms)': ms(build),
        'search p50 (ms)': ms(percentileOf(times, 0.5)),
        'search p99 (ms)': ms(percentileOf(times, 0.99)),
        'search right after an add, p50 (ms)': ms(percentileOf(afterAdd, 0.5)),
      });
    }
  return {
    title: 'Memory search over an in-memory store (hashing embedder)',
    rows,
    notes: [
      'Target: p50 <= 10 ms at 100,000 cards, in-process. Hashing embedder (384 dimensions), weighted fusion, topK 5, after 5 warm-up searches; queries of three words that 75–90% of the cards share (the sentence generator favours a few words) plus one rare word: the BM25 side scores every card holding a query word (typed posting lists, linear-time top-k selection).',
      'With a lexical embedder (the default hashing one) the vector side scores only the best 200 BM25 matches (4 candidate pools), exactly, when BM25 found at least a full pool; the baseline row scans every vector per search, as before (and as any semantic embedder still does).',
      'The search follows the store through its change feed: an unchanged scope is not listed again, and after an add only the new card is indexed and embedded.',
    ],
  };
}

async function historySection(
  root: string,
  sizes: number[],
  repeats: number,
): Promise<BenchSection> {
  const rows: BenchSection['rows'] = [];
  for (const [name, create] of [
    ['in-memory', () => createInMemoryHistoryStore()],
    ['file', () => createFileHistoryStore({ root: join(root, `history-${Math.random()}`) })],
  ] as Array<[string, () => HistoryStore]>) {
    for (const size of sizes) {
      const store = create();
      for (let start = 0; start < size; start += 500) {
        await store.append(
          scope,
          Array.from({ length: Math.min(500, size - start) }, (_, offset) =>
            historyMessage(start + offset),
          ),
        );
      }
      const append = await median(repeats, (index) =>
        store.append(scope, [historyMessage(size + index)]),
      );
      const count = await median(repeats, () => countHistory(store, scope));
      const readAll = await median(Math.min(repeats, 5), () => store.read(scope));
      const setState = await median(repeats, async () => {
        const state = await store.getState(scope);
        await store.setState(
          scope,
          { summarizedCount: 0, messages: [historyMessage(0)], cycle: 0 },
          state?.version ?? 0,
        );
      });
      rows.push({
        store: name,
        'messages in history': size,
        'append 1 (ms)': ms(append),
        'count (ms)': ms(count),
        'read all (ms)': ms(readAll),
        'getState + setState (ms)': ms(setState),
      });
    }
  }
  return {
    title: 'History store: append, count, read, working-state compare-and-set',
    rows,
    notes: [
      'File store: append = lock + read the last line from the end + one write + fsync, so it does not grow with the history; read all parses the whole JSONL file.',
    ],
  };
}

async function offloadAndLockSection(root: string, repeats: number): Promise<BenchSection> {
  const payload = (index: number): Message => ({
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: `call-${index}`,
        toolName: 'read_file',
        output: { type: 'text', value: `${sentence(index)}\n`.repeat(200) },
      },
    ],
  });
  const rows: BenchSection['rows'] = [];
  for (const [name, store] of [
    ['in-memory', createInMemoryOffloadStore()],
    ['file', createFileOffloadStore({ root: join(root, 'offload') })],
  ] as const) {
    const ids: string[] = [];
    const put = await median(repeats, async (index) => {
      ids.push(await store.put(scope, payload(index)));
    });
    const get = await median(repeats, (index) => store.get(scope, ids[index]!));
    rows.push({ operation: `offload put (~10 KB, ${name})`, 'median (ms)': ms(put) });
    rows.push({ operation: `offload get (~10 KB, ${name})`, 'median (ms)': ms(get) });
  }
  const lockPath = join(root, 'lock-target.json');
  const lock = await median(repeats, () => withFileLock(lockPath, async () => undefined));
  rows.push({ operation: 'withFileLock, uncontended acquire + release', 'median (ms)': ms(lock) });
  return { title: 'Offload store and file lock', rows };
}

export const run: BenchRun = async ({ quick }) => {
  const root = await mkdtemp(join(tmpdir(), 'ctxmem-bench-stores-'));
  try {
    const repeats = quick ? 15 : 50;
    const fileRoots = new Map<number, string>();
    return [
      await memorySection(root, quick ? [100, 1000] : [100, 1000, 5000], repeats),
      await addThroughputSection(root, quick ? [1000, 10_000] : [10_000, 100_000], fileRoots),
      await searchSection(root, quick ? [1000, 10_000] : [10_000, 100_000], quick ? 30 : 100),
      ...(await coldStartSections(fileRoots, {
        scope,
        query: sentence(7).split(' ').slice(2, 5).join(' '),
        runs: quick ? 3 : 7,
      })),
      await historySection(root, quick ? [1000] : [1000, 10_000], repeats),
      await offloadAndLockSection(root, repeats),
    ];
  } finally {
    await rm(root, { recursive: true, force: true });
  }
};

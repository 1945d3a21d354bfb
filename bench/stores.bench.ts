/**
 * Latency of the stores: memory cards (add with de-duplication, list), the append-only history,
 * offloads and the cross-process file lock, in memory and on disk (the OS temp folder, with fsync).
 * Medians of repeated single operations on a store that already holds the given amount of data.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  HistoryStore,
  MemoryCard,
  MemoryCardDraft,
  MemoryIndex,
  MemoryStore,
  Message,
} from '../packages/core/src/contracts/index.js';
import {
  createFileHistoryStore,
  createInMemoryHistoryStore,
} from '../packages/core/src/history/index.js';
import {
  analyzeCardContent,
  type CardAnalysis,
} from '../packages/core/src/memory/card-analysis.js';
import {
  createFileMemoryStore,
  createInMemoryMemoryStore,
  mergeCards,
} from '../packages/core/src/memory/index.js';
import { mergeCardsByScan } from '../packages/core/src/memory/merge-cards-by-scan.js';
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
import type { BenchRun, BenchSection } from './types.js';

const scope = { userId: 'bench-user', sessionId: 'bench' };

const WORDS = (
  'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar ' +
  'papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu amber cobalt jade onyx ' +
  'ruby slate topaz umber violet willow cedar maple birch aspen'
).split(' ');

/** A deterministic pseudo-random sentence that neither duplicates nor supersedes another. */
function sentence(seed: number): string {
  let state = seed * 2654435761 + 1;
  const pick = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return WORDS[state % WORDS.length]!;
  };
  return `Note ${seed}: ${Array.from({ length: 8 }, pick).join(' ')}.`;
}

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

const ms = (value: number) => Number(value.toFixed(3));

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
      'File store: one cards.json per scope, read, merged and rewritten atomically (fsync) under a file lock per add; a duplicate needs no write.',
    ],
  };
}

const BATCH = 1000;

const drafts = (
  from: number,
  count: number,
  type: MemoryCard['type'] = 'fact',
): MemoryCardDraft[] =>
  Array.from({ length: count }, (_, offset) => ({ content: sentence(from + offset), type }));

/** The same sentence with a stop word more and no full stop: a near duplicate. */
const nearDuplicate = (seed: number) => sentence(seed).replace(': ', ': also ').slice(0, -1);

/** The analysis the old merge used: memoized per content, the whole memo cleared at 50,000. */
function oldAnalyzer(): (content: string) => CardAnalysis {
  const memo = new Map<string, CardAnalysis>();
  return (content) => {
    const cached = memo.get(content);
    if (cached) return cached;
    const analysis = analyzeCardContent(content);
    if (memo.size >= 50_000) memo.clear();
    memo.set(content, analysis);
    return analysis;
  };
}

const perSecond = (cards: number, milliseconds: number) => {
  const rate = (cards / milliseconds) * 1000;
  return rate >= 100 ? Math.round(rate) : Number(rate.toPrecision(2));
};

async function addThroughputSection(root: string, sizes: number[]): Promise<BenchSection> {
  const rows: BenchSection['rows'] = [];
  for (const size of sizes) {
    for (const [name, create] of [
      ['in-memory', () => createInMemoryMemoryStore()],
      ['file', () => createFileMemoryStore({ root: join(root, `throughput-${Math.random()}`) })],
    ] as Array<[string, () => MemoryStore]>) {
      const store = create();
      const fillStart = performance.now();
      for (let start = 0; start < size; start += BATCH) {
        await store.add(scope, drafts(start, Math.min(BATCH, size - start)));
      }
      const fill = performance.now() - fillStart;
      const nextStart = performance.now();
      await store.add(scope, drafts(size, BATCH));
      const next = performance.now() - nextStart;
      const count = (await store.list(scope)).length;
      const exactStart = performance.now();
      await store.add(scope, drafts(0, BATCH));
      const exact = performance.now() - exactStart;
      const nearStart = performance.now();
      await store.add(
        scope,
        Array.from({ length: BATCH }, (_, offset) => ({ content: nearDuplicate(BATCH + offset) })),
      );
      const near = performance.now() - nearStart;
      const added = (await store.list(scope)).length - count;
      rows.push({
        path: `indexed, ${name} store`,
        'cards in scope': size,
        'fill 0 → size (cards/s)': perSecond(size, fill),
        'add 1,000 more (cards/s)': perSecond(BATCH, next),
        're-add 1,000 exact + 1,000 near duplicates (ms)': ms(exact + near),
        'new cards from duplicates': added,
      });
    }
    // Adversarial for supersession: preferences that all start with the same words.
    const preferences = createInMemoryMemoryStore();
    const preference = (seed: number) => ({
      content: `User prefers tool${seed} and lib${seed} for task${seed} in project${seed} daily`,
      type: 'preference' as const,
    });
    const preferencesStart = performance.now();
    for (let start = 0; start < size; start += BATCH) {
      await preferences.add(
        scope,
        Array.from({ length: Math.min(BATCH, size - start) }, (_, offset) =>
          preference(start + offset),
        ),
      );
    }
    const preferencesFill = performance.now() - preferencesStart;
    const preferencesNextStart = performance.now();
    await preferences.add(
      scope,
      Array.from({ length: BATCH }, (_, offset) => preference(size + offset)),
    );
    rows.push({
      path: 'indexed, in-memory store, preferences sharing their first words',
      'cards in scope': size,
      'fill 0 → size (cards/s)': perSecond(size, preferencesFill),
      'add 1,000 more (cards/s)': perSecond(BATCH, performance.now() - preferencesNextStart),
      're-add 1,000 exact + 1,000 near duplicates (ms)': '-',
      'new cards from duplicates': '-',
    });
    // The old path: every draft compared with every current card, with the old analysis memo.
    const existing = mergeCards([], drafts(0, size), {
      scope,
      now: 'now',
      generateId: () => `card-${Math.random()}`,
    }).cards;
    const sample = size >= 100_000 ? 20 : 200;
    const analyze = oldAnalyzer();
    const baselineStart = performance.now();
    mergeCardsByScan(
      existing,
      drafts(size, sample),
      { scope, now: 'now', generateId: () => `card-${Math.random()}` },
      analyze,
    );
    const baseline = performance.now() - baselineStart;
    rows.push({
      path: `naive scan (old merge, ${sample} drafts)`,
      'cards in scope': size,
      'fill 0 → size (cards/s)': '-',
      'add 1,000 more (cards/s)': perSecond(sample, baseline),
      're-add 1,000 exact + 1,000 near duplicates (ms)': '-',
      'new cards from duplicates': '-',
    });
  }
  return {
    title: 'Memory store: add throughput (de-duplication and supersession through index look-ups)',
    rows,
    notes: [
      'Target: >= 2,000 cards/s at 100,000 cards. Batches of 1,000 drafts per add, as `ctxmem memory add` does; distinct 10-word sentences from a 40-word vocabulary (so every word is shared by thousands of cards).',
      'File store: every add also rewrites cards.json atomically (fsync), linear in the scope size; that write, not the merge, dominates at 100,000 cards.',
      'Naive scan: the previous merge (each draft against every current card, analyses memoized up to 50,000 contents then cleared), on a sample of drafts, one batch.',
    ],
  };
}

function percentile(sorted: readonly number[], share: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))]!;
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
  // HNSW only at the smaller size: building its graph for 100,000 cards takes minutes.
  for (const [name, mode, createIndex, variantSizes] of [
    ['hybrid, brute-force vectors (default)', 'hybrid', bruteForce, sizes],
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
        'search p50 (ms)': ms(percentile(times, 0.5)),
        'search p99 (ms)': ms(percentile(times, 0.99)),
        'search right after an add, p50 (ms)': ms(percentile(afterAdd, 0.5)),
      });
    }
  return {
    title: 'Memory search over an in-memory store (hashing embedder)',
    rows,
    notes: [
      'Target: p50 <= 10 ms at 100,000 cards, in-process. Hashing embedder (384 dimensions), weighted fusion, topK 5; queries of three words that tens of thousands of cards share plus one rare word: the BM25 side scores every card holding a query word, so it, not the vector index, sets the p50 at 100,000 cards.',
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
  const message = (index: number): Message => ({
    role: index % 2 === 0 ? 'user' : 'assistant',
    content: `${sentence(index)} ${'detail '.repeat(40)}`,
  });
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
            message(start + offset),
          ),
        );
      }
      const append = await median(repeats, (index) => store.append(scope, [message(size + index)]));
      const count = await median(repeats, () => store.count(scope));
      const readAll = await median(Math.min(repeats, 5), () => store.read(scope));
      const setState = await median(repeats, async () => {
        const state = await store.getState(scope);
        await store.setState(
          scope,
          { summarizedCount: 0, messages: [message(0)], cycle: 0 },
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
    return [
      await memorySection(root, quick ? [100, 1000] : [100, 1000, 5000], repeats),
      await addThroughputSection(root, quick ? [1000, 10_000] : [10_000, 100_000]),
      await searchSection(root, quick ? [1000, 10_000] : [10_000, 100_000], quick ? 30 : 100),
      await historySection(root, quick ? [1000] : [1000, 10_000], repeats),
      await offloadAndLockSection(root, repeats),
    ];
  } finally {
    await rm(root, { recursive: true, force: true });
  }
};

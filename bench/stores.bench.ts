/**
 * Latency of the stores: memory cards (add with de-duplication, list), the append-only history,
 * offloads and the cross-process file lock, in memory and on disk (the OS temp folder, with fsync).
 * Medians of repeated single operations on a store that already holds the given amount of data.
 */
import { randomUUID } from 'node:crypto';
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
  countHistory,
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
import { withFileLock, writeFileAtomic } from '../packages/core/src/storage/index.js';
import { createHnswMemoryIndex } from '../packages/hnswlib/src/index.js';
import { coldStartSections } from './memory-cold-start.js';
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
      'File store: one append-only log (cards.jsonl) per scope; an add takes the file lock, reads what other processes appended since, merges through the card index and appends one line with an fsync; a duplicate needs no write.',
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

/**
 * The same sentence with a stop word more and no full stop: the same content tokens, so a near
 * duplicate by the merge rule (Jaccard >= 0.85). ("also" is not a stop word: with the generator's
 * few distinct words per sentence it lowered the Jaccard below 0.85 for about 14% of them, which
 * then rightly became new cards.)
 */
const nearDuplicate = (seed: number) => sentence(seed).replace(': ', ': the ').slice(0, -1);

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

/**
 * What the file store before its log wrote for one `add` of 1,000 cards to a scope of `size`: the
 * whole scope as one JSON document (card lines cached between writes, as it did), atomically
 * with fsync. Its merge cost the same as now (the same card index), so only the write is timed.
 */
async function rewriteBaseline(root: string, size: number): Promise<number> {
  const now = new Date().toISOString();
  const lines = drafts(0, size + BATCH).map((draft) =>
    JSON.stringify({
      id: randomUUID(),
      content: draft.content,
      type: draft.type,
      tags: [],
      createdAt: now,
      updatedAt: now,
      scope,
    }),
  );
  const path = join(root, `rewrite-baseline-${size}.json`);
  await writeFileAtomic(path, `{"cards":[\n${lines.slice(0, size).join(',\n')}\n]}\n`);
  const start = performance.now();
  await writeFileAtomic(path, `{"cards":[\n${lines.join(',\n')}\n]}\n`);
  return performance.now() - start;
}

async function addThroughputSection(
  root: string,
  sizes: number[],
  fileRoots: Map<number, string>,
): Promise<BenchSection> {
  const rows: BenchSection['rows'] = [];
  for (const size of sizes) {
    for (const [name, create] of [
      ['in-memory', () => createInMemoryMemoryStore()],
      [
        'file (append-only log)',
        () => {
          const fileRoot = join(root, `throughput-${size}`);
          fileRoots.set(size, fileRoot);
          return createFileMemoryStore({ root: fileRoot });
        },
      ],
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
    rows.push({
      path: 'baseline: previous file store, its write per add (whole scope rewritten)',
      'cards in scope': size,
      'fill 0 → size (cards/s)': '-',
      'add 1,000 more (cards/s)': perSecond(BATCH, await rewriteBaseline(root, size)),
      're-add 1,000 exact + 1,000 near duplicates (ms)': '-',
      'new cards from duplicates': '-',
    });
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
      "File store: every add appends one line to the scope's log (cards.jsonl) with one write and an fsync, under the cross-process lock; the log is compacted (rewritten atomically) only when most of it is garbage. Baseline: the previous file store rewrote the whole scope as one JSON document per add; its row times only that write (serialize with cached card lines + atomic write with fsync), its merge being the same as the log's, so its cards/s is an upper bound.",
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
        'search p50 (ms)': ms(percentile(times, 0.5)),
        'search p99 (ms)': ms(percentile(times, 0.99)),
        'search right after an add, p50 (ms)': ms(percentile(afterAdd, 0.5)),
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
      const count = await median(repeats, () => countHistory(store, scope));
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

/**
 * Memory store add throughput (part of `stores.bench.ts`): filling a scope in batches, adding to
 * it, re-adding exact and near duplicates, supersession among preferences that share their first
 * words, and the two baselines: the previous file store's whole-scope rewrite per add, and the
 * previous merge that compared each draft with every current card.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { MemoryStore } from '../packages/core/src/contracts/index.js';
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
import { writeFileAtomic } from '../packages/core/src/storage/index.js';
import { ms } from './latency.js';
import { BATCH, drafts, scope, sentence } from './store-sentences.js';
import type { BenchSection } from './types.js';

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

export async function addThroughputSection(
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

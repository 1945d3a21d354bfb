/**
 * Latency of the stores: memory cards (add with de-duplication, list), the append-only history,
 * offloads and the cross-process file lock, in memory and on disk (the OS temp folder, with fsync).
 * Medians of repeated single operations on a store that already holds the given amount of data.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HistoryStore, MemoryStore, Message } from '../packages/core/src/contracts/index.js';
import {
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
import { withFileLock } from '../packages/core/src/storage/index.js';
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
      await historySection(root, quick ? [1000] : [1000, 10_000], repeats),
      await offloadAndLockSection(root, repeats),
    ];
  } finally {
    await rm(root, { recursive: true, force: true });
  }
};

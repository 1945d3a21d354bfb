/**
 * Crash and concurrency tests of the file stores with real child processes: writers are
 * SIGKILLed at random moments and every write they acknowledged must survive; two writers at once
 * must lose and duplicate nothing; a lock left by a killed process must be taken over.
 * `CTXMEM_LONG_TESTS=1` runs more kill iterations.
 */
import { mkdir, mkdtemp, readFile, rm, stat, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledFixture } from '../../../../test/setup/fixture-bundle.js';
import { releaseTogether, startWriter } from '../../../../test/setup/writer-process.js';
import { createFileHistoryStore } from '../history/index.js';
import { createFileMemoryStore } from '../memory/index.js';
import type { CorruptionEvent } from './index.js';
import { withFileLock } from './index.js';

const fixture = await bundledFixture(new URL('../test/fixtures/store-writer.ts', import.meta.url));
const longRun = process.env.CTXMEM_LONG_TESTS === '1';
const KILL_ITERATIONS = longRun ? 100 : 20;
const STALE_MS = 2000;

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'ctxmem-crash-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const scope = { userId: 'crash-test', sessionId: 'one' };

async function reload(storeRoot: string) {
  const corruption: CorruptionEvent[] = [];
  const onCorruption = (event: CorruptionEvent) => corruption.push(event);
  const cards = await createFileMemoryStore({ root: storeRoot, onCorruption }).list(scope);
  const history = await createFileHistoryStore({ root: storeRoot, onCorruption }).read(scope);
  return { cards, history, corruption };
}

describe('file stores under SIGKILL and concurrent processes', () => {
  it(
    `keeps every acknowledged write when writers are killed at random moments (${KILL_ITERATIONS} kills)`,
    async () => {
      // Rotating over a few stores lets a lock left by a kill go stale before that store is used
      // again, so the test does not spend most of its time waiting for stale-lock takeover.
      const stores = Array.from({ length: 5 }, (_, index) => join(root, `kill-${index}`));
      const acknowledged = new Map<string, { cards: Set<string>; messages: Map<number, string> }>(
        stores.map((store) => [store, { cards: new Set(), messages: new Map() }]),
      );
      for (let iteration = 0; iteration < KILL_ITERATIONS; iteration++) {
        const store = stores[iteration % stores.length]!;
        const writer = startWriter(fixture, {
          mode: 'write',
          root: store,
          label: `i${iteration}`,
          staleMs: STALE_MS,
        });
        await writer.waitFor('ready');
        await sleep(20 + Math.random() * 230);
        writer.child.kill('SIGKILL');
        await writer.exited;
        const acked = acknowledged.get(store)!;
        for (const line of writer.lines) {
          if (line.startsWith('card ')) acked.cards.add(line.slice('card '.length));
          const message = /^message (\d+) (.*)$/u.exec(line);
          if (message) acked.messages.set(Number(message[1]), message[2]!);
        }

        const { cards, history, corruption } = await reload(store);
        const cardContents = cards.map((card) => card.content);
        for (const content of acked.cards) expect(cardContents).toContain(content);
        expect(new Set(cardContents).size).toBe(cardContents.length);
        expect(history.map((entry) => entry.index)).toEqual(history.map((_, index) => index));
        for (const [index, content] of acked.messages) {
          expect(history[index]?.message.content).toBe(content);
        }
        const messageContents = history.map((entry) => entry.message.content);
        expect(new Set(messageContents).size).toBe(messageContents.length);
        // A torn last line is expected after a kill and is not reported as corruption.
        expect(corruption).toEqual([]);
      }
      const total = [...acknowledged.values()].reduce((sum, acked) => sum + acked.cards.size, 0);
      expect(total).toBeGreaterThan(0);
    },
    KILL_ITERATIONS * 5_000 + 30_000,
  );

  it('loses and duplicates nothing when two processes write the same store at once', async () => {
    const store = join(root, 'two-writers');
    const count = 60;
    const writers = ['a', 'b'].map((label) =>
      startWriter(fixture, { mode: 'write', root: store, label, count, staleMs: STALE_MS }),
    );
    await Promise.all(writers.map((writer) => writer.waitFor('done')));
    await Promise.all(writers.map((writer) => writer.exited));
    const { cards, history, corruption } = await reload(store);
    expect(corruption).toEqual([]);
    expect(cards).toHaveLength(2 * count);
    expect(new Set(cards.map((card) => card.content)).size).toBe(2 * count);
    expect(history.map((entry) => entry.index)).toEqual(
      Array.from({ length: 2 * count }, (_, index) => index),
    );
    expect(new Set(history.map((entry) => entry.message.content)).size).toBe(2 * count);
    for (const writer of writers) {
      for (const line of writer.lines) {
        const message = /^message (\d+) (.*)$/u.exec(line);
        if (message) expect(history[Number(message[1])]!.message.content).toBe(message[2]);
      }
    }
  }, 60_000);

  it('takes over a lock whose holder was SIGKILLed', async () => {
    const path = join(root, 'stale', 'cards.json');
    const holder = startWriter(fixture, { mode: 'hold-lock', path, staleMs: STALE_MS });
    await holder.waitFor('locked');
    holder.child.kill('SIGKILL');
    await holder.exited;
    const result = await withFileLock(path, async () => 'acquired', {
      staleMs: STALE_MS,
      timeoutMs: 20_000,
    });
    expect(result).toBe('acquired');
  }, 40_000);

  // proper-lockfile removes held locks on exit through signal-exit 3; write-file-atomic's
  // signal-exit 4 undid that once its first write was done, so the next writer waited `staleMs`.
  it.each([
    ['without', undefined],
    ['after', 'written.json'],
  ])(
    'removes a lock its holder exits inside, %s an atomic write',
    async (_, write) => {
      const folder = join(root, `exit-in-lock-${write ? 'write' : 'plain'}`);
      await mkdir(folder, { recursive: true });
      const path = join(folder, 'cards.json');
      const holder = startWriter(fixture, {
        mode: 'exit-in-lock',
        path,
        ...(write ? { write: join(folder, write) } : {}),
      });
      await holder.waitFor('locked');
      expect(await holder.exited, holder.errors()).toBe(0);
      await expect(stat(`${path}.lock`)).rejects.toMatchObject({ code: 'ENOENT' });
    },
    40_000,
  );

  it('lets only one of several processes take over the same stale lock', async () => {
    const folder = join(root, 'contended');
    await mkdir(folder, { recursive: true });
    const path = join(folder, 'state.json');
    const log = join(folder, 'sections.log');
    // A lock left behind an hour ago: both processes find it stale at the same moment.
    await mkdir(`${path}.lock`);
    const anHourAgo = new Date(Date.now() - 3_600_000);
    await utimes(`${path}.lock`, anHourAgo, anHourAgo);
    const writers = ['a', 'b', 'c'].map((label) =>
      startWriter(fixture, {
        mode: 'lock-section',
        path,
        log,
        label,
        count: 20,
        staleMs: STALE_MS,
      }),
    );
    await releaseTogether(writers);
    await Promise.all(writers.map((writer) => writer.waitFor('done')));
    const lines = (await readFile(log, 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(120);
    for (let index = 0; index < lines.length; index += 2) {
      // Sections never overlap: every enter is directly followed by the same process's exit.
      expect(lines[index]!.startsWith('enter ')).toBe(true);
      expect(lines[index + 1]).toBe(lines[index]!.replace('enter', 'exit'));
    }
  }, 60_000);
});

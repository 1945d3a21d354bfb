import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { auditStoredConversation } from './shared-conversation.js';
import { PROCESS_SCOPE, type ProcessStores, type SharedStoresJob } from './shared-stores-job.js';

const scope = PROCESS_SCOPE;

/** A writer process as the test sees it (the repository's `startWriter` gives one). */
export interface WriterHandle {
  child: { kill(signal: 'SIGKILL'): unknown };
  /** Complete stdout lines so far. */
  lines: string[];
  waitFor(text: string): Promise<void>;
  exited: Promise<number | null>;
  /** Starts a process waiting for `released` (see `SharedStoresProcessesOptions.releases`). */
  release?(): void;
}

export interface SharedStoresProcessesOptions {
  /** A new namespace (schema, key prefix), ready to use. */
  namespace: () => Promise<string>;
  /** The driver's stores over `namespace`, in this process. */
  open: (namespace: string) => ProcessStores;
  /** Starts the driver's writer process on `namespace`, running `runSharedStoresJob(job)`. */
  start: (namespace: string, job: SharedStoresJob) => WriterHandle;
  /** Writers killed at once per round, and rounds. @default { writers: 3, rounds: 2 } */
  kills?: { writers: number; rounds: number };
  /**
   * Whether the handles `start` returns have `release`: processes that must act together then
   * start once all of them are ready, instead of at a moment a few seconds ahead.
   * @default false
   */
  releases?: boolean;
}

/** Lines printed after `prefix `, without the prefix. */
function printedAfter(writer: WriterHandle, prefix: string): string[] {
  return writer.lines
    .filter((line) => line.startsWith(`${prefix} `))
    .map((line) => line.slice(prefix.length + 1));
}

/**
 * A shared store used by several processes, as several instances of an application use it:
 * concurrent writers lose and duplicate nothing, a writer killed with SIGKILL loses nothing it had
 * acknowledged, optimistic state updates let exactly one writer per version through, and 4
 * processes serving every turn of one conversation store each message once.
 */
export function testSharedStoresProcesses(
  name: string,
  {
    namespace,
    open,
    start,
    kills = { writers: 3, rounds: 2 },
    releases = false,
  }: SharedStoresProcessesOptions,
): void {
  /**
   * Starts one writer per job, all acting together: on their release once all are ready, or at a
   * moment far enough ahead for all of them to have started.
   */
  async function startTogether(
    space: string,
    jobs: ReadonlyArray<Exclude<SharedStoresJob, { mode: 'write' }>>,
    startDelayMs: number,
  ): Promise<WriterHandle[]> {
    if (!releases) {
      const startAt = Date.now() + startDelayMs;
      return jobs.map((job) => start(space, { ...job, startAt }));
    }
    const writers = jobs.map((job) => start(space, job));
    await Promise.all(writers.map((writer) => writer.waitFor('ready')));
    for (const writer of writers) writer.release?.();
    return writers;
  }

  describe(`${name} shared by processes`, () => {
    async function reload(space: string) {
      const stores = open(space);
      return {
        cards: await stores.memory.list(scope),
        history: await stores.history.read(scope),
        turns: await stores.history.readTurns(scope, [1, 2, 3]),
      };
    }

    const indexed = (line: string) => {
      const [, index, content] = /^(\d+) (.*)$/u.exec(line)!;
      return [Number(index), content!] as const;
    };

    it('loses and duplicates nothing when two processes write the same scope at once', async () => {
      const space = await namespace();
      const count = 40;
      const writers = ['a', 'b'].map((label) => start(space, { mode: 'write', label, count }));
      await Promise.all(writers.map((writer) => writer.waitFor('done')));
      await Promise.all(writers.map((writer) => writer.exited));
      const { cards, history, turns } = await reload(space);
      expect(cards).toHaveLength(2 * count);
      expect(new Set(cards.map((card) => card.content)).size).toBe(2 * count);
      expect(history.map((entry) => entry.index)).toEqual(
        Array.from({ length: 2 * count }, (_, index) => index),
      );
      expect(history.map((entry) => entry.turn)).toEqual(
        Array.from({ length: 2 * count }, (_, index) => index + 1),
      );
      expect(turns).toEqual(history.slice(0, 3));
      for (const writer of writers) {
        for (const [index, content] of printedAfter(writer, 'message').map(indexed)) {
          expect(history[index]!.message.content).toBe(content);
        }
      }
    }, 60_000);

    it(`keeps every acknowledged write of writers killed with SIGKILL (${kills.rounds} rounds of ${kills.writers} writers)`, async () => {
      const space = await namespace();
      const acknowledgedCards = new Set<string>();
      const acknowledgedMessages = new Map<number, string>();
      for (let round = 0; round < kills.rounds; round++) {
        // Several writers at once, each killed at its own random moment, mid-write or between.
        const writers = Array.from({ length: kills.writers }, (_, writer) =>
          start(space, { mode: 'write', label: `r${round}w${writer}` }),
        );
        await Promise.all(writers.map((writer) => writer.waitFor('ready')));
        await Promise.all(
          writers.map(async (writer) => {
            await sleep(30 + Math.random() * 300);
            writer.child.kill('SIGKILL');
            await writer.exited;
          }),
        );
        for (const writer of writers) {
          for (const content of printedAfter(writer, 'card')) acknowledgedCards.add(content);
          for (const [index, content] of printedAfter(writer, 'message').map(indexed)) {
            acknowledgedMessages.set(index, content);
          }
        }
        const { cards, history } = await reload(space);
        const contents = cards.map((card) => card.content);
        for (const content of acknowledgedCards) expect(contents).toContain(content);
        expect(new Set(contents).size).toBe(contents.length);
        // Gap-free: a write cut off by the kill is either all there or not at all.
        expect(history.map((entry) => entry.index)).toEqual(history.map((_, index) => index));
        for (const [index, content] of acknowledgedMessages) {
          expect(history[index]?.message.content).toBe(content);
        }
      }
      expect(acknowledgedCards.size).toBeGreaterThan(0);
    }, 60_000);

    it('lets exactly one process through per state version', async () => {
      const space = await namespace();
      const count = 10;
      const writers = await startTogether(
        space,
        ['a', 'b', 'c'].map((label) => ({ mode: 'state', label, count })),
        1000,
      );
      await Promise.all(writers.map((writer) => writer.waitFor('done')));
      const won = writers.flatMap((writer) => printedAfter(writer, 'won').map(Number));
      // Every version was written by exactly one process, and no update was lost.
      expect(won.sort((left, right) => left - right)).toEqual(
        Array.from({ length: 3 * count }, (_, index) => index + 1),
      );
      const state = await open(space).history.getState(scope);
      expect(state?.version).toBe(3 * count);
      expect(state?.messages).toHaveLength(3 * count);
    }, 60_000);

    it('stores each message once when 4 processes serve every turn of one conversation', async () => {
      const space = await namespace();
      const writers = await startTogether(
        space,
        [0, 1, 2, 3].map(() => ({ mode: 'converse' })),
        3000,
      );
      await Promise.all(writers.map((writer) => writer.waitFor('done')));
      expect(await auditStoredConversation(open(space).history, scope)).toEqual({
        expected: 61,
        stored: 61,
        duplicates: 0,
        losses: 0,
        exact: true,
      });
    }, 120_000);
  });
}

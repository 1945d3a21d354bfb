import { describe, expect, it } from 'vitest';
import type { HistoryStore, Message, Scope, WorkingState } from '../contracts/index.js';
import {
  ConflictError,
  InvalidArgumentError,
  InvalidIdError,
  InvalidMessageError,
  ScopeRequiredError,
} from '../errors/index.js';
import { countHistory, readHistoryTurns } from '../history/index.js';
import type { ScopeField } from '../storage/index.js';
import { emptySections } from '../summarize/index.js';
import { createFakeClock, type FakeClock } from './clock.js';
import { positionalAppendScenarios } from './history-store-multi-instance.js';

export interface HistoryStoreFactoryOptions {
  clock: FakeClock;
  /** Present when a test needs a multi-user store. */
  requiredScope?: ScopeField[];
}

/** Creates a fresh, empty store for one test. */
export type HistoryStoreFactory = (
  options: HistoryStoreFactoryOptions,
) => HistoryStore | Promise<HistoryStore>;

const alice: Scope = { userId: 'alice', sessionId: 's1' };
const bob: Scope = { userId: 'bob', sessionId: 's1' };

const user = (content: string, id?: string): Message => ({
  role: 'user',
  content,
  ...(id ? { id } : {}),
});
const assistant = (content: string): Message => ({ role: 'assistant', content });

function emptyState(messages: Message[] = []): Omit<WorkingState, 'version'> {
  return { summarizedCount: 0, messages, cycle: 0 };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('Expected the promise to reject.');
}

/**
 * The conformance suite every `HistoryStore` runs (in-memory and file in core; drivers later):
 * append / read / turns, working-state compare-and-set, scope isolation, validation, concurrent
 * writers in one process, idempotent positional appends, and several context managers sharing the
 * store (alternating, at the same moment, after a restart, compacting at once).
 */
export function testHistoryStore(name: string, createStore: HistoryStoreFactory): void {
  describe(`HistoryStore conformance: ${name}`, () => {
    const setup = async (requiredScope?: ScopeField[]) => {
      const clock = createFakeClock();
      const store = await createStore({ clock, ...(requiredScope ? { requiredScope } : {}) });
      return { clock, store };
    };

    it('appends messages with consecutive indexes, turns, ids and timestamps', async () => {
      const { store, clock } = await setup();
      const stored = await store.append(alice, [
        { role: 'system', content: 'You help.' },
        user('hello', 'u1'),
        assistant('hi'),
      ]);
      expect(stored.map((entry) => entry.index)).toEqual([0, 1, 2]);
      expect(stored.map((entry) => entry.turn)).toEqual([0, 1, 1]);
      expect(stored.every((entry) => entry.createdAt === clock.iso())).toBe(true);
      expect(stored[1]!.message).toEqual(user('hello', 'u1'));
      const generated = stored.map((entry) => entry.message.id);
      expect(generated.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
      expect(new Set(generated).size).toBe(3);
      expect(await store.read(alice)).toEqual(stored);
    });

    it('continues indexes and turns across appends', async () => {
      const { store } = await setup();
      await store.append(alice, [user('one'), assistant('a1')]);
      const second = await store.append(alice, [
        user('two'),
        {
          role: 'assistant',
          content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'search', input: { q: 'x' } }],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'c1',
              toolName: 'search',
              output: { type: 'text', value: 'found' },
            },
          ],
        },
        user('three'),
      ]);
      expect(second.map((entry) => [entry.index, entry.turn])).toEqual([
        [2, 2],
        [3, 2],
        [4, 2],
        [5, 3],
      ]);
      expect(await countHistory(store, alice)).toBe(6);
    });

    it('does not start a turn at user messages ctxmem created', async () => {
      const { store } = await setup();
      const stored = await store.append(alice, [
        user('question'),
        { role: 'user', content: '## Relevant Memories', ctxmem: { kind: 'memory-injection' } },
        user('follow-up'),
      ]);
      expect(stored.map((entry) => entry.turn)).toEqual([1, 1, 2]);
    });

    it('reads an index range [from, to)', async () => {
      const { store } = await setup();
      await store.append(
        alice,
        Array.from({ length: 6 }, (_, index) => user(`m${index}`)),
      );
      const range = await store.read(alice, { from: 2, to: 4 });
      expect(range.map((entry) => entry.message.content)).toEqual(['m2', 'm3']);
      expect((await store.read(alice, { from: 4 })).map((entry) => entry.index)).toEqual([4, 5]);
      expect((await store.read(alice, { to: 1 })).map((entry) => entry.index)).toEqual([0]);
      expect(await store.read(alice, { from: 10 })).toEqual([]);
    });

    it('reads whole turns by number and skips turns that do not exist', async () => {
      const { store } = await setup();
      await store.append(alice, [
        { role: 'system', content: 'sys' },
        user('q1'),
        assistant('a1'),
        user('q2'),
        assistant('a2'),
        user('q3'),
      ]);
      const turns = await readHistoryTurns(store, alice, [2, 0, 9]);
      expect(turns.map((entry) => entry.message.content)).toEqual(['sys', 'q2', 'a2']);
      expect(await readHistoryTurns(store, alice, [])).toEqual([]);
    });

    it('counts 0 for an empty scope and reads nothing', async () => {
      const { store } = await setup();
      expect(await countHistory(store, alice)).toBe(0);
      expect(await store.read(alice)).toEqual([]);
      expect(await store.append(alice, [])).toEqual([]);
      expect(await countHistory(store, alice)).toBe(0);
    });

    it('round-trips binary and URL content exactly', async () => {
      const { store } = await setup();
      const bytes = new Uint8Array([0, 1, 2, 250, 255]);
      const message: Message = {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image', image: bytes, mediaType: 'image/png' },
          { type: 'image', image: new URL('https://example.com/a.png') },
        ],
      };
      await store.append(alice, [message]);
      const [stored] = await store.read(alice);
      const content = stored!.message.content as Array<{ image?: unknown }>;
      expect(content[1]!.image).toBeInstanceOf(Uint8Array);
      expect([...(content[1]!.image as Uint8Array)]).toEqual([...bytes]);
      expect(content[2]!.image).toBeInstanceOf(URL);
      expect(String(content[2]!.image)).toBe('https://example.com/a.png');
    });

    it('returns copies: changing a returned or passed message does not change the store', async () => {
      const { store } = await setup();
      const input = user('original');
      const [stored] = await store.append(alice, [input]);
      (input as { content: string }).content = 'changed input';
      (stored!.message as { content: string }).content = 'changed output';
      const [reread] = await store.read(alice);
      expect(reread!.message.content).toBe('original');
    });

    it('keeps the working state with optimistic versions', async () => {
      const { store } = await setup();
      expect(await store.getState(alice)).toBeUndefined();
      const first = await store.setState(
        alice,
        {
          summarizedCount: 2,
          coveredDigest: '2:abc:def',
          messages: [user('kept')],
          cycle: 1,
          summary: {
            sections: { ...emptySections(), goal: ['ship'] },
          },
          flushedCycle: 1,
        },
        0,
      );
      expect(first).toBe(1);
      const state = await store.getState(alice);
      expect(state).toMatchObject({
        version: 1,
        summarizedCount: 2,
        coveredDigest: '2:abc:def',
        cycle: 1,
        flushedCycle: 1,
      });
      expect(state!.messages).toEqual([user('kept')]);
      expect(state!.summary?.sections.goal).toEqual(['ship']);
      expect(await store.setState(alice, emptyState(), 1)).toBe(2);
      expect((await store.getState(alice))!.version).toBe(2);
    });

    it('rejects a stale version with ConflictError and keeps the newer state', async () => {
      const { store } = await setup();
      await store.setState(alice, emptyState([user('v1')]), 0);
      const error = await rejection(store.setState(alice, emptyState([user('stale')]), 0));
      expect(ConflictError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ expectedVersion: 0, actualVersion: 1 });
      const ahead = await rejection(store.setState(alice, emptyState(), 5));
      expect(ConflictError.isInstance(ahead)).toBe(true);
      expect((await store.getState(alice))!.messages).toEqual([user('v1')]);
    });

    it('lets exactly one of many concurrent writers of the same version win', async () => {
      const { store } = await setup();
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, (_, index) =>
          store.setState(alice, emptyState([user(`writer ${index}`)]), 0),
        ),
      );
      const won = results.filter((result) => result.status === 'fulfilled');
      expect(won).toHaveLength(1);
      for (const result of results) {
        if (result.status === 'rejected')
          expect(ConflictError.isInstance(result.reason)).toBe(true);
      }
      expect((await store.getState(alice))!.version).toBe(1);
    });

    it('isolates scopes, even with identical message ids', async () => {
      const { store } = await setup();
      await store.append(alice, [user('alice secret', 'same-id')]);
      await store.setState(alice, emptyState([user('alice state')]), 0);
      expect(await store.read(bob)).toEqual([]);
      expect(await countHistory(store, bob)).toBe(0);
      expect(await readHistoryTurns(store, bob, [1])).toEqual([]);
      expect(await store.getState(bob)).toBeUndefined();
      await store.append(bob, [user('bob text', 'same-id')]);
      expect((await store.read(alice)).map((entry) => entry.message.content)).toEqual([
        'alice secret',
      ]);
      expect((await store.read(bob))[0]!.index).toBe(0);
      // Scopes that differ only in which field holds the id are different scopes.
      expect(await store.read({ agentId: 'alice', sessionId: 's1' })).toEqual([]);
      expect(await store.read({ userId: 'alice' })).toEqual([]);
      await store.clear(bob);
      expect(await countHistory(store, alice)).toBe(1);
      expect(await store.getState(alice)).toBeDefined();
    });

    it('clears history and state, after which numbering restarts', async () => {
      const { store } = await setup();
      await store.append(alice, [user('a'), user('b')]);
      await store.setState(alice, emptyState(), 0);
      await store.clear(alice);
      expect(await countHistory(store, alice)).toBe(0);
      expect(await store.getState(alice)).toBeUndefined();
      const [again] = await store.append(alice, [user('c')]);
      expect(again).toMatchObject({ index: 0, turn: 1 });
      expect(await store.setState(alice, emptyState(), 0)).toBe(1);
      await store.clear({ userId: 'nobody' });
    });

    it('rejects unsafe scope ids with InvalidIdError', async () => {
      const { store } = await setup();
      for (const userId of [
        '../escape',
        'a/b',
        'a\\b',
        '',
        'x\u0000y',
        '/etc',
        'C:evil',
        'x'.repeat(201),
      ]) {
        const error = await rejection(store.append({ userId }, [user('x')]));
        expect(InvalidIdError.isInstance(error), userId).toBe(true);
      }
      expect(InvalidIdError.isInstance(await rejection(store.read({ sessionId: '..' })))).toBe(
        true,
      );
    });

    it('rejects malformed messages, ranges, turns and versions with typed errors', async () => {
      const { store } = await setup();
      const bad = [{ role: 'robot', content: 'x' }] as unknown as Message[];
      expect(InvalidMessageError.isInstance(await rejection(store.append(alice, bad)))).toBe(true);
      const toolText = [{ role: 'tool', content: 'x' }] as unknown as Message[];
      expect(InvalidMessageError.isInstance(await rejection(store.append(alice, toolText)))).toBe(
        true,
      );
      expect(await countHistory(store, alice)).toBe(0);
      expect(
        InvalidArgumentError.isInstance(await rejection(store.read(alice, { from: -1 }))),
      ).toBe(true);
      expect(InvalidArgumentError.isInstance(await rejection(store.read(alice, { to: 1.5 })))).toBe(
        true,
      );
      expect(
        InvalidArgumentError.isInstance(
          await rejection(readHistoryTurns(store, alice, [Number.NaN])),
        ),
      ).toBe(true);
      expect(
        InvalidArgumentError.isInstance(await rejection(store.setState(alice, emptyState(), -1))),
      ).toBe(true);
      const badState = { summarizedCount: -1, messages: [], cycle: 0 };
      expect(
        InvalidArgumentError.isInstance(await rejection(store.setState(alice, badState, 0))),
      ).toBe(true);
    });

    it('requires the configured scope fields in multi-user mode', async () => {
      const { store } = await setup(['userId']);
      const calls: Array<() => Promise<unknown>> = [
        () => store.append({ sessionId: 's1' }, [user('x')]),
        () => store.read({}),
        () => readHistoryTurns(store, { sessionId: 's1' }, [1]),
        () => countHistory(store, {}),
        () => store.getState({}),
        () => store.setState({}, emptyState(), 0),
        () => store.clear({}),
      ];
      for (const call of calls) {
        const error = await rejection(call());
        expect(ScopeRequiredError.isInstance(error)).toBe(true);
        expect(error).toMatchObject({ field: 'userId' });
      }
      expect(await store.append({ userId: 'alice' }, [user('ok')])).toHaveLength(1);
    });

    it('loses nothing with many concurrent appends in one process', async () => {
      const { store } = await setup();
      const writers = 20;
      const perWriter = 5;
      await Promise.all(
        Array.from({ length: writers }, (_, writer) =>
          store.append(
            alice,
            Array.from({ length: perWriter }, (_, item) => user(`w${writer}-${item}`)),
          ),
        ),
      );
      const all = await store.read(alice);
      expect(all).toHaveLength(writers * perWriter);
      expect(all.map((entry) => entry.index)).toEqual(all.map((_, index) => index));
      expect(new Set(all.map((entry) => entry.message.content)).size).toBe(writers * perWriter);
      // Each batch stays contiguous and in order.
      for (let writer = 0; writer < writers; writer++) {
        const positions = all
          .filter((entry) => String(entry.message.content).startsWith(`w${writer}-`))
          .map((entry) => entry.index);
        expect(positions).toEqual(positions.map((_, offset) => positions[0]! + offset));
      }
      expect(all.map((entry) => entry.turn)).toEqual(all.map((_, index) => index + 1));
    });

    positionalAppendScenarios(async () => (await setup()).store);
  });
}

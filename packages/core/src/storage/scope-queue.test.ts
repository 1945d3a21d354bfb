import { describe, expect, it } from 'vitest';
import type { MemoryCard, MemoryCardDraft } from '../contracts/index.js';
import { InvalidArgumentError, StorageError } from '../errors/index.js';
import { createScopeQueue, MAX_JOINED_DRAFTS } from './scope-queue.js';

const card = (content: string): MemoryCard => ({
  id: content,
  content,
  type: 'fact',
  tags: [],
  scope: { userId: 'u' },
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});

/**
 * A store that records each batch it is given and answers a card per draft, held until let go;
 * `refuse` names drafts it fails on, and `fault` the error it fails with.
 */
function recordingStore(
  refuse?: (content: string) => boolean,
  fault: (content: string) => Error = (content) =>
    new InvalidArgumentError({ message: `refused ${content}`, argument: 'drafts' }),
) {
  const batches: string[][] = [];
  let release: () => void = () => {};
  let gate = Promise.resolve();
  return {
    batches,
    hold() {
      gate = new Promise((resolve) => {
        release = resolve;
      });
    },
    release: () => release(),
    /** Resolves once the store was given `count` batches. */
    async given(count: number) {
      while (batches.length < count) await new Promise((resolve) => setTimeout(resolve, 0));
    },
    async addDrafts(drafts: readonly MemoryCardDraft[]) {
      batches.push(drafts.map((draft) => draft.content));
      await gate;
      const refused = drafts.find((draft) => refuse?.(draft.content));
      if (refused) throw fault(refused.content);
      return drafts.map((draft) => card(draft.content));
    },
  };
}

const drafts = (...contents: string[]) => contents.map((content) => ({ content }));
const contents = (cards: MemoryCard[]) => cards.map((each) => each.content);

describe('createScopeQueue', () => {
  it('runs adds queued behind a running one as one batch and gives each call its cards', async () => {
    const queue = createScopeQueue();
    const store = recordingStore();
    store.hold();
    const first = queue.add('scope', drafts('a'), store.addDrafts);
    await store.given(1);
    const second = queue.add('scope', drafts('b', 'c'), store.addDrafts);
    const third = queue.add('scope', drafts('d'), store.addDrafts);
    store.release();
    expect(contents(await first)).toEqual(['a']);
    expect(contents(await second)).toEqual(['b', 'c']);
    expect(contents(await third)).toEqual(['d']);
    // The first add had started when the others came: they wait, then commit together.
    expect(store.batches).toEqual([['a'], ['b', 'c', 'd']]);
  });

  it('never joins adds across another call: a list sees every add before it and none after', async () => {
    const queue = createScopeQueue();
    const store = recordingStore();
    store.hold();
    const seen: string[][] = [];
    // Added in one tick, before the first starts: they join.
    const before = [
      queue.add('scope', drafts('a'), store.addDrafts),
      queue.add('scope', drafts('b'), store.addDrafts),
    ];
    const listed = queue.run('scope', async () => {
      seen.push(store.batches.flat());
      return 'listed';
    });
    const after = queue.add('scope', drafts('c'), store.addDrafts);
    store.release();
    await Promise.all([...before, after]);
    expect(await listed).toBe('listed');
    expect(seen).toEqual([['a', 'b']]);
    expect(store.batches).toEqual([['a', 'b'], ['c']]);
  });

  it('keeps scopes apart: adds of other keys neither join nor wait', async () => {
    const queue = createScopeQueue();
    const held = recordingStore();
    const free = recordingStore();
    held.hold();
    const waiting = queue.add('one', drafts('a'), held.addDrafts);
    expect(contents(await queue.add('two', drafts('b'), free.addDrafts))).toEqual(['b']);
    held.release();
    await waiting;
    expect(held.batches).toEqual([['a']]);
    expect(free.batches).toEqual([['b']]);
  });

  it('fails every call of a batch the store failed with a StorageError, without running them again', async () => {
    const queue = createScopeQueue();
    const store = recordingStore(
      (content) => content === 'down',
      () => new StorageError({ message: 'the server is down', path: 'scope' }),
    );
    store.hold();
    const first = queue.add('scope', drafts('a'), store.addDrafts);
    await store.given(1);
    const joined = [
      queue.add('scope', drafts('b'), store.addDrafts),
      queue.add('scope', drafts('down'), store.addDrafts),
    ];
    store.release();
    expect(contents(await first)).toEqual(['a']);
    for (const call of joined) await expect(call).rejects.toSatisfy(StorageError.isInstance);
    expect(store.batches).toEqual([['a'], ['b', 'down']]);
  });

  it('runs the calls of a batch failed otherwise one at a time: one refused card fails only its call', async () => {
    const queue = createScopeQueue();
    const store = recordingStore((content) => content === 'bad');
    store.hold();
    const first = queue.add('scope', drafts('a'), store.addDrafts);
    await store.given(1);
    const good = queue.add('scope', drafts('b'), store.addDrafts);
    const bad = queue.add('scope', drafts('bad'), store.addDrafts);
    const last = queue.add('scope', drafts('c'), store.addDrafts);
    store.release();
    expect(contents(await first)).toEqual(['a']);
    expect(contents(await good)).toEqual(['b']);
    await expect(bad).rejects.toSatisfy(InvalidArgumentError.isInstance);
    expect(contents(await last)).toEqual(['c']);
    expect(store.batches).toEqual([['a'], ['b', 'bad', 'c'], ['b'], ['bad'], ['c']]);
  });

  it('settles every call when the store function throws instead of rejecting', async () => {
    const queue = createScopeQueue();
    const throwing = (): Promise<MemoryCard[]> => {
      throw new InvalidArgumentError({ message: 'thrown at once', argument: 'drafts' });
    };
    const calls = [
      queue.add('scope', drafts('a'), throwing),
      queue.add('scope', drafts('b'), throwing),
    ];
    for (const call of calls) await expect(call).rejects.toSatisfy(InvalidArgumentError.isInstance);
    // The line goes on after them.
    const store = recordingStore();
    expect(contents(await queue.add('scope', drafts('c'), store.addDrafts))).toEqual(['c']);
  });

  it('starts a new batch rather than pass MAX_JOINED_DRAFTS drafts', async () => {
    const queue = createScopeQueue();
    const store = recordingStore();
    store.hold();
    const many = (prefix: string, count: number) =>
      drafts(...Array.from({ length: count }, (_, index) => `${prefix}${index}`));
    const first = queue.add('scope', drafts('first'), store.addDrafts);
    await store.given(1);
    const calls = [
      first,
      queue.add('scope', many('x', MAX_JOINED_DRAFTS - 1), store.addDrafts),
      queue.add('scope', drafts('fits'), store.addDrafts),
      queue.add('scope', drafts('next'), store.addDrafts),
    ];
    store.release();
    await Promise.all(calls);
    expect(store.batches.map((batch) => batch.length)).toEqual([1, MAX_JOINED_DRAFTS, 1]);
    expect(store.batches[2]).toEqual(['next']);
  });
});

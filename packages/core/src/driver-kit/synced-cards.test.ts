import { describe, expect, it } from 'vitest';
import type { MemoryCard } from '../contracts/index.js';
import { createKeyedQueue } from '../storage/index.js';
import { exponentialBackoff } from './backoff.js';
import { addSynced, type SyncedCommit } from './synced-add.js';
import { createSyncedCardCache, mergeSynced, rollBack } from './synced-cards.js';

const scope = { userId: 'u' };
let ids = 0;
const options = () => ({ scope, now: '2026-01-01T00:00:00.000Z', generateId: () => `c${ids++}` });

describe('synced cards', () => {
  it('lists only what a merge changed, and rolls it back to the stored form', () => {
    const cache = createSyncedCardCache();
    const synced = cache.update('k', { revision: 0, generation: '', complete: true, cards: [] });
    const first = mergeSynced(
      synced.index,
      [{ content: 'I prefer Python for scripts.', type: 'preference' }],
      options(),
    );
    expect(first.writes.map((card) => card.content)).toEqual(['I prefer Python for scripts.']);
    const stored: MemoryCard[] = first.writes;
    // Superseding the stored card changes it and adds the new one: both are written.
    const second = mergeSynced(
      synced.index,
      [{ content: 'I prefer Rust for scripts.', type: 'preference' }],
      options(),
    );
    expect(second.writes).toHaveLength(2);
    expect(second.writes.find((card) => card.id === stored[0]!.id)?.supersededBy).toBe(
      second.results[0]!.id,
    );
    // The commit lost: the new card goes, the older one is as stored again.
    rollBack(synced.index, second.writes, stored);
    expect(synced.index.cards()).toEqual(stored);
    // A duplicate writes nothing.
    expect(
      mergeSynced(synced.index, [{ content: 'I prefer Python for scripts!' }], options()).writes,
    ).toEqual([]);
  });

  it('catches up with changes, and starts over on a complete read or another generation', () => {
    const cache = createSyncedCardCache();
    const writer = createSyncedCardCache().update('k', {
      revision: 0,
      generation: 'g',
      complete: true,
      cards: [],
    });
    const reader = cache.update('k', { revision: 0, generation: 'g', complete: true, cards: [] });
    const { writes } = mergeSynced(writer.index, [{ content: 'Backups run nightly.' }], options());
    const caughtUp = cache.update('k', {
      revision: 1,
      generation: 'g',
      complete: false,
      cards: writes,
    });
    expect(caughtUp).toBe(reader);
    expect(reader.index.cards().map((card) => card.content)).toEqual(['Backups run nightly.']);
    const replaced = cache.update('k', {
      revision: 1,
      generation: 'h',
      complete: false,
      cards: [],
    });
    expect(replaced).not.toBe(reader);
    expect(replaced.index.size).toBe(0);
  });

  it('catches up lazily: own commits wait in pending and go back in stored order', async () => {
    const cache = createSyncedCardCache();
    const other = createSyncedCardCache().update('k', {
      revision: 0,
      generation: '',
      complete: true,
      cards: [],
    });
    const [theirs] = mergeSynced(
      other.index,
      [{ content: 'Backups run nightly.' }],
      options(),
    ).writes;
    cache.update('k', { revision: 0, generation: '', complete: true, cards: [] });
    const commits: SyncedCommit[] = [];
    // Another writer committed revision 1: this commit is revision 2 and brings nothing back.
    const add = (content: string, revision: number) =>
      addSynced({
        cache,
        key: 'k',
        drafts: [{ content }],
        mergeOptions: options,
        load: async () => cache.get('k')!,
        commit: async (commit) => {
          commits.push(commit);
          return { committed: true, revision, generation: '' };
        },
      });
    const [mine] = await add('Deploys happen on Fridays.', 2);
    const synced = cache.get('k')!;
    expect(synced).toMatchObject({ revision: 0, seen: 2, pending: [mine!.id] });
    // A duplicate is checked with the store (nothing written), since the cache lacks revision 1.
    await add('Deploys happen on Fridays!', 2);
    expect(commits.at(-1)).toMatchObject({ revision: 0, writes: [] });
    cache.update('k', { revision: 2, generation: '', complete: false, cards: [theirs!, mine!] });
    expect(synced.index.cards().map((card) => card.id)).toEqual([theirs!.id, mine!.id]);
    expect(synced).toMatchObject({ revision: 2, seen: 2, pending: [] });
    // Current again: the next commit, right after, moves the revision; a duplicate asks nothing.
    await add('Tests run before each deploy.', 3);
    expect(synced).toMatchObject({ revision: 3, seen: 3, pending: [] });
    const asked = commits.length;
    await add('Tests run before each deploy!', 3);
    expect(commits).toHaveLength(asked);
  });

  it('keeps a bounded number of scopes, the least recently used leaving first', () => {
    const cache = createSyncedCardCache(2);
    const empty = { revision: 0, generation: '', complete: true, cards: [] };
    cache.update('a', empty);
    cache.update('b', empty);
    cache.get('a');
    cache.update('c', empty);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBeDefined();
  });
});

describe('createKeyedQueue', () => {
  it('runs work of one key one at a time, after failures too, and other keys at once', async () => {
    const queued = createKeyedQueue();
    const order: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const first = queued('a', async () => {
      await gate;
      order.push('a1');
      throw new Error('fails');
    });
    const second = queued('a', async () => order.push('a2'));
    await queued('b', async () => order.push('b1'));
    release();
    await expect(first).rejects.toThrow('fails');
    await second;
    expect(order).toEqual(['b1', 'a1', 'a2']);
  });
});

describe('exponentialBackoff', () => {
  it('doubles from the initial delay up to the cap', () => {
    const delay = exponentialBackoff({ initialMs: 50, maxMs: 2_000 });
    expect([0, 1, 2, 3, 5, 6, 20].map(delay)).toEqual([50, 100, 200, 400, 1600, 2000, 2000]);
  });
});

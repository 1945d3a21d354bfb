import { describe, expect, it } from 'vitest';
import type { Scope } from '../contracts/index.js';
import { createInMemoryMemoryStore } from '../memory/index.js';
import { createFakeClock } from '../test/clock.js';
import { createFixedEmbedder } from '../test/embedders.js';
import { createScopeSync } from './scope-sync.js';
import { resolveSearchOptions } from './search-settings.js';
import { sequenceOf } from './sequence-context.js';

const scope: Scope = { userId: 'alice' };

async function setup() {
  const clock = createFakeClock('2026-01-01T00:00:00.000Z');
  const store = createInMemoryMemoryStore({ clock });
  const settings = resolveSearchOptions({ store, embedder: createFixedEmbedder() });
  return { clock, store, settings, sync: createScopeSync(settings) };
}

describe('createScopeSync', () => {
  it('counts added, updated and removed cards and keeps BM25 and the work list in line', async () => {
    const { store, sync } = await setup();
    const [first, second] = await store.add(scope, [
      { content: 'The user likes green tea', type: 'preference', tags: ['tea'] },
      { content: 'The office is in Berlin', type: 'fact', tags: [] },
    ]);
    const added = await sync.syncCards(scope);
    expect(added).toMatchObject({ added: 2, updated: 0, removed: 0 });
    expect(added.state.entries.get(first!.id)!.text).toBe('The user likes green tea\ntea');
    expect([...added.state.pending].sort()).toEqual([first!.id, second!.id].sort());
    expect(added.state.bm25.search('berlin', 5).map((hit) => hit.id)).toEqual([second!.id]);

    await store.remove(scope, [second!.id]);
    const removed = await sync.syncCards(scope);
    expect(removed).toMatchObject({ added: 0, updated: 0, removed: 1 });
    expect(removed.state.bm25.search('berlin', 5)).toEqual([]);
    expect(removed.state.pending.has(second!.id)).toBe(false);

    const unchanged = await sync.syncCards(scope);
    expect(unchanged).toMatchObject({ added: 0, updated: 0, removed: 0 });
  });

  it('forgets every scope on clear', async () => {
    const { store, sync } = await setup();
    await store.add(scope, [{ content: 'A card', type: 'fact', tags: [] }]);
    await sync.syncCards(scope);
    sync.clear();
    expect(await sync.syncCards(scope)).toMatchObject({ added: 1 });
  });
});

describe('sequenceOf', () => {
  it('orders the cards by createdAt, then as the store listed them, and rebuilds after a change', async () => {
    const { clock, store, sync } = await setup();
    clock.set('2026-01-02T00:00:00.000Z');
    const [late] = await store.add(scope, [{ content: 'later turn', type: 'fact', tags: [] }]);
    clock.set('2026-01-01T00:00:00.000Z');
    const [early] = await store.add(scope, [{ content: 'earlier turn', type: 'fact', tags: [] }]);
    const { state } = await sync.syncCards(scope);
    expect(sequenceOf(state).ids).toEqual([early!.id, late!.id]);
    clock.set('2026-01-03T00:00:00.000Z');
    const [last] = await store.add(scope, [{ content: 'last turn', type: 'fact', tags: [] }]);
    await sync.syncCards(scope);
    expect(sequenceOf(state).ids).toEqual([early!.id, late!.id, last!.id]);
    expect(sequenceOf(state).positions.get(last!.id)).toBe(2);
  });
});

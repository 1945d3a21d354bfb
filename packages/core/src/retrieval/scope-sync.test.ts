import { describe, expect, it } from 'vitest';
import type { MemoryCard, MemoryStore, Scope } from '../contracts/index.js';
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
  it('orders the episodes by createdAt, then as the store listed them, and rebuilds after a change', async () => {
    const { clock, store, sync } = await setup();
    const episodes = new Set(['episode'] as const);
    clock.set('2026-01-02T00:00:00.000Z');
    const [late] = await store.add(scope, [{ content: 'later turn', type: 'episode', tags: [] }]);
    await store.add(scope, [{ content: 'a fact is not in the sequence', type: 'fact' }]);
    clock.set('2026-01-01T00:00:00.000Z');
    const [early] = await store.add(scope, [
      { content: 'earlier turn', type: 'episode', tags: [] },
    ]);
    const { state } = await sync.syncCards(scope);
    expect(sequenceOf(state, episodes).ids).toEqual([early!.id, late!.id]);
    clock.set('2026-01-03T00:00:00.000Z');
    const [last] = await store.add(scope, [{ content: 'last turn', type: 'episode', tags: [] }]);
    await sync.syncCards(scope);
    expect(sequenceOf(state, episodes).ids).toEqual([early!.id, late!.id, last!.id]);
    expect(sequenceOf(state, episodes).positions.get(last!.id)).toBe(2);
  });

  it('appends records added in order and keeps the sequence when a card outside it changes', async () => {
    const { clock, store, sync } = await setup();
    const episodes = new Set(['episode'] as const);
    const [first] = await store.add(scope, [{ content: 'first turn', type: 'episode' }]);
    const { state } = await sync.syncCards(scope);
    const built = sequenceOf(state, episodes);
    clock.advance(1000);
    const [second] = await store.add(scope, [{ content: 'second turn', type: 'episode' }]);
    const [fact] = await store.add(scope, [{ content: 'a self-contained fact' }]);
    await sync.syncCards(scope);
    // The same sequence, grown: nothing was sorted again.
    expect(state.sequence).toBe(built);
    expect(built.ids).toEqual([first!.id, second!.id]);
    await store.remove(scope, [fact!.id]);
    await sync.syncCards(scope);
    expect(state.sequence).toBe(built);

    // A record dated before the last one, or a record leaving, has it rebuilt in order.
    const [before] = await store.add(scope, [
      { content: 'an imported turn', type: 'episode', occurredAt: '2025-12-31' },
    ]);
    await sync.syncCards(scope);
    expect(sequenceOf(state, episodes).ids).toEqual([before!.id, first!.id, second!.id]);
    await store.remove(scope, [first!.id]);
    await sync.syncCards(scope);
    expect(sequenceOf(state, episodes).ids).toEqual([before!.id, second!.id]);
    expect(sequenceOf(state, episodes).positions.get(second!.id)).toBe(1);
  });

  it('rebuilds the sequence when a stored card changes type, with or without new text', async () => {
    const card = (id: string, content: string, type: MemoryCard['type']): MemoryCard => ({
      id,
      content,
      type,
      tags: [],
      createdAt: `2026-01-01T00:00:0${id}.000Z`,
      updatedAt: '2026-01-01T00:00:00.000Z',
      scope,
    });
    let cards = [card('1', 'first turn', 'episode'), card('2', 'a note', 'fact')];
    const store: MemoryStore = {
      add: async () => [],
      get: async (_scope, id) => cards.find((stored) => stored.id === id)!,
      remove: async () => {},
      list: async () => cards,
    };
    const sync = createScopeSync(resolveSearchOptions({ store, embedder: createFixedEmbedder() }));
    const episodes = new Set(['episode'] as const);
    const { state } = await sync.syncCards(scope);
    expect(sequenceOf(state, episodes).ids).toEqual(['1']);
    cards = [cards[0]!, card('2', 'the second turn, rewritten', 'episode')];
    await sync.syncCards(scope);
    expect(sequenceOf(state, episodes).ids).toEqual(['1', '2']);
    cards = [card('1', 'first turn', 'fact'), cards[1]!];
    await sync.syncCards(scope);
    expect(sequenceOf(state, episodes).ids).toEqual(['2']);
  });
});

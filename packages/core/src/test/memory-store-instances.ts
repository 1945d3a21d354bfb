import { describe, expect, it } from 'vitest';
import type { MemoryCard, MemoryStore, Scope } from '../contracts/index.js';

/**
 * Opens `count` stores over one fresh, shared namespace, as `count` application instances would
 * (each with its own cache of the scope's cards).
 */
export type MemoryStoreInstancesFactory = (count: number) => Promise<MemoryStore[]>;

const alice: Scope = { userId: 'alice' };

const contents = (cards: readonly MemoryCard[]) => cards.map((card) => card.content);

/**
 * What a shared `MemoryStore` (PostgreSQL, Redis) must do across instances: each sees what the
 * others wrote although it caches the scope's cards, and adds racing from several instances end as
 * one writer adding them one after another would leave them (nothing lost, every duplicate stored
 * once, one current card of a superseded subject, one order seen by all).
 */
export function testMemoryStoreInstances(name: string, open: MemoryStoreInstancesFactory): void {
  describe(`MemoryStore across instances: ${name}`, () => {
    it('sees what other instances wrote although it caches parsed cards', async () => {
      const [first, second] = (await open(2)) as [MemoryStore, MemoryStore];
      const [kept] = await first.add(alice, [{ content: 'First note from instance one.' }]);
      expect(await first.list(alice)).toHaveLength(1);
      await second.add(alice, [{ content: 'Second note from instance two.' }]);
      expect(contents(await first.list(alice))).toEqual([
        'First note from instance one.',
        'Second note from instance two.',
      ]);
      await second.remove(alice, [kept!.id]);
      expect(contents(await first.list(alice))).toEqual(['Second note from instance two.']);
      await first.add(alice, [{ content: 'Third note from instance one.' }]);
      await first.add(alice, [{ content: 'Second note from instance two!' }]);
      expect(contents(await second.list(alice))).toEqual([
        'Second note from instance two.',
        'Third note from instance one.',
      ]);
      // Cached cards are never handed out: changing a listed card changes nothing.
      const [listed] = await first.list(alice);
      listed!.tags.push('mutated');
      expect((await first.list(alice))[0]!.tags).toEqual([]);
    });

    it('merges racing adds of several instances as one writer would, in one order', async () => {
      const stores = await open(4);
      const rounds = 12;
      await Promise.all(
        stores.map(async (store, instance) => {
          for (let round = 0; round < rounds; round++) {
            await Promise.all([
              store.add(alice, [
                { content: `Instance ${instance} notes item ${round * 7919 + instance}.` },
              ]),
              // The same fact from every instance in the same round.
              store.add(alice, [{ content: `Shared fact number ${round}.`, type: 'fact' }]),
              // Near duplicates: the same fact with a word more, tagged by instance.
              store.add(alice, [
                {
                  content: `Backups of cluster ${round} run nightly at two ${instance % 2 === 0 ? '' : 'sharp'}`,
                  type: 'fact',
                  tags: [`instance-${instance}`],
                },
              ]),
              // A preference each instance changes: one stays current.
              store.add(alice, [
                {
                  content: `I prefer editor ${instance * rounds + round} for project notes.`,
                  type: 'preference',
                },
              ]),
            ]);
          }
        }),
      );
      const all = await stores[0]!.list(alice, { includeSuperseded: true });
      const current = await stores[0]!.list(alice);
      const unrelated = current.filter((card) => card.content.startsWith('Instance '));
      expect(unrelated).toHaveLength(stores.length * rounds);
      for (let round = 0; round < rounds; round++) {
        expect(contents(current).filter((text) => text === `Shared fact number ${round}.`)).toEqual(
          [`Shared fact number ${round}.`],
        );
        const backups = current.filter((card) =>
          card.content.startsWith(`Backups of cluster ${round} `),
        );
        expect(backups).toHaveLength(1);
      }
      const preferences = all.filter((card) => card.type === 'preference');
      expect(preferences).toHaveLength(stores.length * rounds);
      expect(preferences.filter((card) => card.supersededBy === undefined)).toHaveLength(1);
      // Every instance lists the same cards in the same order.
      for (const store of stores.slice(1)) {
        expect(await store.list(alice, { includeSuperseded: true })).toEqual(all);
      }
    });
  });
}

import { describe, expect, it } from 'vitest';
import type { MemoryCard, MemoryCardDraft, MemoryStore, Scope } from '../contracts/index.js';
import {
  InvalidArgumentError,
  InvalidIdError,
  NotFoundError,
  ScopeRequiredError,
} from '../errors/index.js';
import type { ScopeField } from '../storage/index.js';
import { createFakeClock, type FakeClock } from './clock.js';
import { createRandom } from './memory-index-vectors.js';

export interface MemoryStoreFactoryOptions {
  clock: FakeClock;
  /** Present when a test needs a multi-user store. */
  requiredScope?: ScopeField[];
}

/** Creates a fresh, empty store for one test. */
export type MemoryStoreFactory = (
  options: MemoryStoreFactoryOptions,
) => MemoryStore | Promise<MemoryStore>;

const alice: Scope = { userId: 'alice' };
const bob: Scope = { userId: 'bob' };

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('Expected the promise to reject.');
}

const contents = (cards: readonly MemoryCard[]) => cards.map((card) => card.content);

/** Subjects of the seeded mixes below: few, so drafts often duplicate or supersede each other. */
const MIX_SUBJECTS = ['cluster', 'backups', 'editor', 'deploys', 'tokens'];
const MIX_TOOLS = ['Rust', 'Python', 'Go', 'Zig'];

/**
 * A seeded mix of one process's calls on one scope: adds of 1–3 drafts (exact duplicates with
 * other case and spacing, near duplicates with a word more, preferences that supersede each
 * other, new facts) and lists between them.
 */
function mixedCalls(seed: number): Array<{ add: MemoryCardDraft[] } | { list: true }> {
  const random = createRandom(seed);
  const pick = <Item>(items: readonly Item[]) => items[Math.floor(random() * items.length)]!;
  const draft = (): MemoryCardDraft => {
    const subject = pick(MIX_SUBJECTS);
    const roll = random();
    if (roll < 0.3)
      return { content: `I prefer ${pick(MIX_TOOLS)} for ${subject} work`, type: 'preference' };
    if (roll < 0.5)
      return { content: `THE ${subject}   NOTES live in the wiki`, tags: [pick(MIX_TOOLS)] };
    if (roll < 0.7) return { content: `The ${subject} notes live in the wiki today` };
    if (roll < 0.85)
      return { content: `The ${subject} notes live in the wiki`, tags: [pick(MIX_TOOLS)] };
    return {
      content: `Fact ${Math.floor(random() * 1_000)} about ${subject} and ${pick(MIX_TOOLS)}`,
    };
  };
  return Array.from({ length: 14 }, () =>
    random() < 0.2
      ? { list: true as const }
      : { add: Array.from({ length: 1 + Math.floor(random() * 3) }, draft) },
  );
}

/** What a card is apart from its id and times: content, type, tags, whether superseded. */
const shape = (card: MemoryCard) => ({
  content: card.content,
  type: card.type,
  tags: [...card.tags].sort(),
  superseded: card.supersededBy !== undefined,
});

/**
 * The conformance suite every `MemoryStore` runs: add / de-duplicate / supersede / list / get /
 * remove, scope isolation and multi-user mode, validation, concurrent writers in one process.
 */
export function testMemoryStore(name: string, createStore: MemoryStoreFactory): void {
  describe(`MemoryStore conformance: ${name}`, () => {
    const setup = async (requiredScope?: ScopeField[]) => {
      const clock = createFakeClock();
      const store = await createStore({ clock, ...(requiredScope ? { requiredScope } : {}) });
      return { clock, store };
    };

    it('adds cards with ids, defaults, timestamps and the scope', async () => {
      const { store, clock } = await setup();
      const [card, second] = await store.add(alice, [
        { content: 'The project uses pnpm workspaces.' },
        { content: 'Ship the beta by March.', type: 'goal', tags: ['release'], source: 'turn 3' },
      ]);
      expect(card).toMatchObject({
        content: 'The project uses pnpm workspaces.',
        type: 'fact',
        tags: [],
        createdAt: clock.iso(),
        updatedAt: clock.iso(),
        scope: alice,
      });
      expect(card!.supersededBy).toBeUndefined();
      expect(second).toMatchObject({ type: 'goal', tags: ['release'], source: 'turn 3' });
      expect(card!.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(card!.id).not.toBe(second!.id);
      expect(await store.list(alice)).toEqual([card, second]);
      expect(await store.get(alice, card!.id)).toEqual(card);
    });

    it('returns the existing card for exact duplicates, whatever the case, spacing, punctuation or width', async () => {
      const { store, clock } = await setup();
      const [original] = await store.add(alice, [
        { content: 'Use pnpm, not npm.', tags: ['tooling'] },
      ]);
      clock.advance(60_000);
      const again = await store.add(alice, [
        { content: '  use   PNPM, not npm ' },
        { content: 'Ｕｓｅ　ｐｎｐｍ，ｎｏｔ ｎｐｍ！' },
      ]);
      expect(again).toEqual([original, original]);
      expect(await store.list(alice)).toEqual([original]);
    });

    it('de-duplicates within one batch', async () => {
      const { store } = await setup();
      const cards = await store.add(alice, [
        { content: 'Tests run with vitest.' },
        { content: 'tests run with Vitest' },
      ]);
      expect(cards[0]!.id).toBe(cards[1]!.id);
      expect(await store.list(alice)).toHaveLength(1);
    });

    it('merges a near duplicate: same card, tags merged, updatedAt moved', async () => {
      const { store, clock } = await setup();
      const [original] = await store.add(alice, [
        {
          content: 'The staging database runs PostgreSQL 16 on the shared cluster in Frankfurt',
          tags: ['infra'],
        },
      ]);
      clock.advance(5_000);
      const [merged] = await store.add(alice, [
        {
          content:
            'The staging database runs PostgreSQL 16 on the shared cluster in Frankfurt today',
          tags: ['database', 'infra'],
        },
      ]);
      expect(merged!.id).toBe(original!.id);
      expect(merged!.content).toBe(original!.content);
      expect(merged!.tags).toEqual(['infra', 'database']);
      expect(merged!.createdAt).toBe(original!.createdAt);
      expect(merged!.updatedAt).toBe(clock.iso());
      expect(await store.list(alice)).toEqual([merged]);
    });

    it('supersedes an older card that a newer one contradicts', async () => {
      const { store, clock } = await setup();
      const [python] = await store.add(alice, [
        { content: 'I prefer Python for scripts', type: 'preference' },
      ]);
      clock.advance(1_000);
      const [rust] = await store.add(alice, [
        { content: 'I prefer Rust for scripts', type: 'preference' },
      ]);
      expect(rust!.id).not.toBe(python!.id);
      expect(await store.list(alice)).toEqual([rust]);
      const all = await store.list(alice, { includeSuperseded: true });
      expect(contents(all)).toEqual(['I prefer Python for scripts', 'I prefer Rust for scripts']);
      expect(all[0]).toMatchObject({ supersededBy: rust!.id, updatedAt: clock.iso() });
      expect((await store.get(alice, python!.id)).supersededBy).toBe(rust!.id);
    });

    it('keeps unrelated cards and cards of other types current', async () => {
      const { store } = await setup();
      await store.add(alice, [
        { content: 'I prefer Python for scripts', type: 'preference' },
        { content: 'I prefer tea in the morning', type: 'preference' },
        { content: 'Write scripts in Rust', type: 'todo' },
      ]);
      expect(await store.list(alice)).toHaveLength(3);
    });

    it('dates a card when it occurred, and never supersedes an episode', async () => {
      const { store, clock } = await setup();
      const [asked, answered, today] = await store.add(alice, [
        {
          content: 'Ana: I prefer Python for scripts',
          type: 'episode',
          occurredAt: '2023-05-08T13:56:00+02:00',
        },
        {
          content: 'Ana: I prefer Rust for scripts',
          type: 'episode',
          occurredAt: '2023-06-01',
        },
        { content: 'The project uses pnpm workspaces.' },
      ]);
      expect(asked).toMatchObject({
        createdAt: '2023-05-08T11:56:00.000Z',
        updatedAt: clock.iso(),
      });
      expect(answered).toMatchObject({ type: 'episode', createdAt: '2023-06-01T00:00:00.000Z' });
      expect(today!.createdAt).toBe(clock.iso());
      // Read back as stored: the date survives, and both records stay current.
      expect(await store.list(alice)).toEqual([asked, answered, today]);
      expect(await store.get(alice, asked!.id)).toEqual(asked);
    });

    it('removes cards; unknown ids are ignored', async () => {
      const { store } = await setup();
      const [keep, drop] = await store.add(alice, [{ content: 'keep me' }, { content: 'drop me' }]);
      await store.remove(alice, [drop!.id, '00000000-0000-4000-8000-000000000000']);
      expect(await store.list(alice)).toEqual([keep]);
      expect(NotFoundError.isInstance(await rejection(store.get(alice, drop!.id)))).toBe(true);
      await store.remove(alice, []);
      // A removed card's content can be added again as a new card.
      const [back] = await store.add(alice, [{ content: 'drop me' }]);
      expect(back!.id).not.toBe(drop!.id);
    });

    it('isolates scopes: cards of one scope are never visible in another', async () => {
      const { store } = await setup();
      const [secret] = await store.add(alice, [{ content: 'Alice keeps her keys in a drawer.' }]);
      expect(await store.list(bob)).toEqual([]);
      expect(await store.list({})).toEqual([]);
      expect(await store.list({ userId: 'alice', sessionId: 's1' })).toEqual([]);
      expect(NotFoundError.isInstance(await rejection(store.get(bob, secret!.id)))).toBe(true);
      await store.remove(bob, [secret!.id]);
      expect(await store.get(alice, secret!.id)).toEqual(secret);
      // The same content in another scope is a separate card, not a duplicate.
      const [bobs] = await store.add(bob, [{ content: 'Alice keeps her keys in a drawer.' }]);
      expect(bobs!.id).not.toBe(secret!.id);
      expect(bobs!.scope).toEqual(bob);
    });

    it('requires the configured scope fields in multi-user mode', async () => {
      const { store } = await setup(['userId']);
      const [card] = await store.add(alice, [{ content: 'scoped' }]);
      const calls: Array<() => Promise<unknown>> = [
        () => store.add({}, [{ content: 'x' }]),
        () => store.list({}),
        () => store.list({ sessionId: 's1' }, { includeSuperseded: true }),
        () => store.get({ agentId: 'a' }, card!.id),
        () => store.remove({}, [card!.id]),
      ];
      for (const call of calls) {
        const error = await rejection(call());
        expect(ScopeRequiredError.isInstance(error)).toBe(true);
        expect(error).toMatchObject({ field: 'userId' });
      }
      expect(await store.list(alice)).toEqual([card]);
    });

    it('rejects unsafe ids and malformed drafts with typed errors', async () => {
      const { store } = await setup();
      expect(InvalidIdError.isInstance(await rejection(store.list({ userId: '../x' })))).toBe(true);
      expect(InvalidIdError.isInstance(await rejection(store.get(alice, '../x')))).toBe(true);
      expect(InvalidIdError.isInstance(await rejection(store.remove(alice, ['a/b'])))).toBe(true);
      const drafts = [
        [{ content: '' }],
        [{ content: '   ' }],
        [{ content: 'ok', type: 'opinion' }],
        [{ content: 'ok', tags: 'x' }],
        [{ content: 42 }],
        [null],
        [{ content: 'ok', occurredAt: 'yesterday' }],
        [{ content: 'ok', occurredAt: '2023-02-30' }],
        // A time without a zone would be read in the local zone of whichever process adds it.
        [{ content: 'ok', occurredAt: '2023-05-08T13:56' }],
        [{ content: 'ok', occurredAt: 1683546960000 }],
      ] as unknown as MemoryCardDraft[][];
      for (const draft of drafts) {
        const error = await rejection(store.add(alice, draft));
        expect(InvalidArgumentError.isInstance(error), JSON.stringify(draft)).toBe(true);
      }
      expect(await store.list(alice)).toEqual([]);
    });

    it('returns copies: changing a returned card does not change the store', async () => {
      const { store } = await setup();
      const [card] = await store.add(alice, [{ content: 'immutable', tags: ['a'] }]);
      card!.tags.push('mutated');
      (card as { content: string }).content = 'mutated';
      const [listed] = await store.list(alice);
      expect(listed).toMatchObject({ content: 'immutable', tags: ['a'] });
    });

    it('gives each of several concurrent adds its own cards, as adding one after another would', async () => {
      const { store } = await setup();
      const [first, second, invalid, third] = await Promise.allSettled([
        store.add(alice, [
          { content: 'Deploys run on Fridays.' },
          { content: 'The cache is Redis.' },
        ]),
        // A duplicate of the first call's second card, and a card of its own.
        store.add(alice, [{ content: 'the cache is redis' }, { content: 'Tests run nightly.' }]),
        store.add(alice, [{ content: '   ' }]),
        store.add(alice, [{ content: 'Deploys run on Fridays.' }]),
      ]);
      expect(invalid).toMatchObject({ status: 'rejected' });
      expect(InvalidArgumentError.isInstance((invalid as PromiseRejectedResult).reason)).toBe(true);
      const cards = (result: typeof first) => {
        expect(result.status).toBe('fulfilled');
        return (result as PromiseFulfilledResult<MemoryCard[]>).value;
      };
      const [deploys, cache] = cards(first);
      const [cacheAgain, tests] = cards(second);
      expect(contents(cards(first))).toEqual(['Deploys run on Fridays.', 'The cache is Redis.']);
      expect(cacheAgain!.id).toBe(cache!.id);
      expect(tests!.content).toBe('Tests run nightly.');
      expect(cards(third)[0]!.id).toBe(deploys!.id);
      // In some order one after another: each card once.
      expect(contents(await store.list(alice)).sort()).toEqual([
        'Deploys run on Fridays.',
        'Tests run nightly.',
        'The cache is Redis.',
      ]);
    });

    it('ends seeded mixes of concurrent calls of one process as the same calls one after another', async () => {
      for (let seed = 1; seed <= 8; seed++) {
        const scope = { userId: `mix-${seed}` };
        const calls = mixedCalls(seed);
        const together = (await setup()).store;
        const inTurn = (await setup()).store;
        const concurrent = await Promise.all(
          calls.map((call) =>
            'add' in call ? together.add(scope, call.add) : together.list(scope),
          ),
        );
        const sequential: MemoryCard[][] = [];
        for (const call of calls) {
          sequential.push(await ('add' in call ? inTurn.add(scope, call.add) : inTurn.list(scope)));
        }
        calls.forEach((call, index) => {
          if ('list' in call) return;
          // Each add answers one card per draft, the same card as one after another would.
          expect(contents(concurrent[index]!), `seed ${seed}, call ${index}`).toEqual(
            contents(sequential[index]!),
          );
        });
        const stored = await together.list(scope, { includeSuperseded: true });
        expect(stored.map(shape), `seed ${seed}`).toEqual(
          (await inTurn.list(scope, { includeSuperseded: true })).map(shape),
        );
        // Every card an add answered is stored.
        const ids = new Set(stored.map((card) => card.id));
        for (const card of concurrent.flat()) expect(ids.has(card.id)).toBe(true);
      }
    });

    it('loses nothing and duplicates nothing with many concurrent writers in one process', async () => {
      const { store } = await setup();
      const distinct = Array.from({ length: 30 }, (_, index) => ({
        content: `Concurrent note number ${index} about topic ${index * 7919}`,
        type: 'todo' as const,
      }));
      const results = await Promise.all(distinct.map((draft) => store.add(alice, [draft])));
      expect(new Set(results.map(([card]) => card!.id)).size).toBe(distinct.length);
      const same = await Promise.all(
        Array.from({ length: 10 }, () => store.add(alice, [{ content: 'One shared fact.' }])),
      );
      expect(new Set(same.map(([card]) => card!.id)).size).toBe(1);
      const listed = await store.list(alice);
      expect(listed).toHaveLength(distinct.length + 1);
      expect(new Set(contents(listed)).size).toBe(listed.length);
    });
  });
}

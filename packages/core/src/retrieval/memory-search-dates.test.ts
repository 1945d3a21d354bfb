import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MemoryCard, MemoryStore, Scope } from '../contracts/index.js';
import { InvalidArgumentError } from '../errors/index.js';
import { createFileMemoryStore, createInMemoryMemoryStore } from '../memory/index.js';
import { createFakeClock } from '../test/clock.js';
import { createMemorySearch, type MemorySearchOptions } from './index.js';

const alice: Scope = { userId: 'alice' };

/** A card written at `createdAt`; ids decide ties, so tests name the one that should lose `a`. */
function card(id: string, content: string, createdAt: string): MemoryCard {
  return {
    id,
    content,
    type: 'fact',
    tags: [],
    createdAt,
    updatedAt: createdAt,
    scope: alice,
  };
}

function listingStore(cards: MemoryCard[]): MemoryStore {
  return {
    add: async () => [],
    get: async (_scope, id) => cards.find((candidate) => candidate.id === id)!,
    remove: async () => {},
    list: async () => cards,
  };
}

async function ranked(
  cards: MemoryCard[],
  query: string,
  options: Partial<MemorySearchOptions> = {},
): Promise<string[]> {
  const search = createMemorySearch({ store: listingStore(cards), mode: 'bm25', ...options });
  return (await search.search(alice, query, { topK: 5 })).map((hit) => hit.card.id);
}

describe('createMemorySearch dates', () => {
  const may = '2023-05-08T13:56:00.000Z';
  const august = '2023-08-10T09:00:00.000Z';

  it('finds the card written in the month a question names, which its text does not say', async () => {
    const cards = [
      card('a', 'They adopted a kitten.', august),
      card('b', 'They adopted a puppy.', may),
    ];
    const query = 'What did they adopt in May 2023?';
    expect((await ranked(cards, query))[0]).toBe('b');
    // Without dates both match only "adopt", and the tie goes to the first id.
    expect((await ranked(cards, query, { dates: false }))[0]).toBe('a');
  });

  it('indexes the month a relative expression points to, from the time the card was written', async () => {
    const june = '2023-06-02T10:00:00.000Z';
    const cards = [
      card('a', 'I ran a race.', june),
      card('b', 'I ran my first race last month.', june),
    ];
    const query = 'Which race did I run in May 2023?';
    expect((await ranked(cards, query))[0]).toBe('b');
    expect((await ranked(cards, query, { dates: false }))[0]).toBe('a');
  });

  it('reads numeric dates in the query and in cards as month names', async () => {
    const cards = [
      card('a', 'Release notes were written.', august),
      card('b', 'Release notes were written.', may),
      card('c', 'The release is due on 2023-11-20.', may),
    ];
    expect((await ranked(cards, 'release notes 2023-05-08'))[0]).toBe('b');
    // Only the month name, which the card writes as a number, tells the cards apart.
    const november = async (options: Partial<MemorySearchOptions>) => {
      const search = createMemorySearch({ store: listingStore(cards), mode: 'bm25', ...options });
      const [first] = await search.search(alice, 'anything in November?');
      return first;
    };
    expect((await november({}))?.card.id).toBe('c');
    expect(await november({ dates: false })).toBeUndefined();
  });

  it('prefers cards that say when for a question about when, and only for such questions', async () => {
    const cards = [
      card('a', 'Ana went to the choir rehearsal.', may),
      card('b', 'Ana went to the choir rehearsal yesterday.', may),
    ];
    expect((await ranked(cards, 'When did Ana go to the choir rehearsal?'))[0]).toBe('b');
    expect(
      (await ranked(cards, 'When did Ana go to the choir rehearsal?', { dates: false }))[0],
    ).toBe('a');
    expect((await ranked(cards, 'Who went to the choir rehearsal?'))[0]).toBe('a');
    expect(
      (
        await ranked(cards, 'When did Ana go to the choir rehearsal?', {
          dates: { timeQuestionBoost: 0 },
        })
      )[0],
    ).toBe('a');
  });

  it('prefers what was written on the day, or in the week, a question names (namedDateBoost)', async () => {
    const cards = [
      card('a', 'Ana cooked a curry for her friends.', '2023-05-08T19:00:00.000Z'),
      card('b', 'Ana cooked a curry for her friends.', '2023-05-20T19:00:00.000Z'),
      card('c', 'Ana cooked a curry for her friends.', '2023-06-02T19:00:00.000Z'),
    ];
    const boosted = { dates: { namedDateBoost: 0.5 } };
    expect((await ranked(cards, 'What did Ana cook on 20 May, 2023?', boosted))[0]).toBe('b');
    expect((await ranked(cards, 'What did Ana cook on May 20, 2023?', boosted))[0]).toBe('b');
    expect(
      (await ranked(cards, 'What did Ana cook the week before June 3, 2023?', boosted))[0],
    ).toBe('c');
    // Without the boost the month terms tie the May cards, and the first id wins.
    expect(
      (
        await ranked(cards, 'What did Ana cook on 20 May, 2023?', { dates: { namedDateBoost: 0 } })
      )[0],
    ).toBe('a');
  });

  it('resolves "yesterday" or "last week" in a question against now', async () => {
    const cards = [
      card('a', 'Ana cooked a curry for her friends.', '2023-05-01T19:00:00.000Z'),
      card('b', 'Ana cooked a curry for her friends.', '2023-05-14T19:00:00.000Z'),
    ];
    const search = (now: string) =>
      createMemorySearch({
        store: listingStore(cards),
        mode: 'bm25',
        dates: { namedDateBoost: 0.5 },
        now: () => Date.parse(now),
      });
    const first = async (now: string, query: string) =>
      (await (await search(now)).search(alice, query))[0]?.card.id;
    expect(await first('2023-05-15T08:00:00.000Z', 'What did Ana cook yesterday?')).toBe('b');
    expect(await first('2023-05-02T08:00:00.000Z', 'What did Ana cook yesterday?')).toBe('a');
    expect(await first('2023-05-20T08:00:00.000Z', 'What did Ana cook last week?')).toBe('b');
  });

  it('multiplies by 1 + namedDateBoost the score of a card in the named range, and no other', async () => {
    const cards = [
      card('a', 'Ana planted tomatoes.', '2023-05-08T10:00:00.000Z'),
      card('b', 'Ana planted tomatoes.', '2023-07-08T10:00:00.000Z'),
    ];
    const scores = async (namedDateBoost: number) => {
      const search = createMemorySearch({
        store: listingStore(cards),
        mode: 'bm25',
        dates: { namedDateBoost },
      });
      const hits = await search.search(alice, 'What did Ana plant on 8 May, 2023?');
      return new Map(hits.map((hit) => [hit.card.id, hit.score]));
    };
    const plain = await scores(0);
    const boosted = await scores(2);
    expect(boosted.get('a')! / plain.get('a')!).toBeCloseTo(3, 10);
    expect(boosted.get('b')).toBeCloseTo(plain.get('b')!, 10);
  });

  it('dates the cards of a real store by when they were added, and follows a card whose text is unchanged', async () => {
    const clock = createFakeClock(may);
    const store = createInMemoryMemoryStore({ clock });
    await store.add(alice, [{ content: 'Planted the tomatoes in the garden' }]);
    clock.set(august);
    await store.add(alice, [{ content: 'Harvested the tomatoes from the garden' }]);
    const search = createMemorySearch({ store });
    const hits = await search.search(alice, 'tomatoes garden May 2023');
    expect(hits[0]?.card.content).toBe('Planted the tomatoes in the garden');
    const august2023 = await search.search(alice, 'tomatoes garden August 2023');
    expect(august2023[0]?.card.content).toBe('Harvested the tomatoes from the garden');
  });

  it('keeps the date terms in the indexes a file store saves, for the next process', async () => {
    const root = await mkdtemp(join(tmpdir(), 'ctxmem-dates-'));
    try {
      const clock = createFakeClock(may);
      const store = createFileMemoryStore({ root, clock });
      await store.add(alice, [{ content: 'Planted the tomatoes in the garden' }]);
      clock.set(august);
      await store.add(alice, [{ content: 'Harvested the tomatoes from the garden' }]);
      await createMemorySearch({ store, onIndexEvent: () => {} }).sync(alice);
      // A new process: a new store and search over the same folder load the saved indexes.
      const events: unknown[] = [];
      const reloaded = createMemorySearch({
        store: createFileMemoryStore({ root }),
        mode: 'bm25',
        onIndexEvent: (event) => events.push(event),
      });
      const [inAugust] = await reloaded.search(alice, 'tomatoes garden August 2023');
      expect(inAugust?.card.content).toBe('Harvested the tomatoes from the garden');
      const [inMay] = await reloaded.search(alice, 'tomatoes garden May 2023');
      expect(inMay?.card.content).toBe('Planted the tomatoes in the garden');
      expect(events).toEqual([]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('rejects a time-question or named-date boost that is negative or not a number', () => {
    for (const boost of [-0.1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() =>
        createMemorySearch({ store: listingStore([]), dates: { timeQuestionBoost: boost } }),
      ).toThrow(InvalidArgumentError);
      expect(() =>
        createMemorySearch({ store: listingStore([]), dates: { namedDateBoost: boost } }),
      ).toThrow(/dates\.namedDateBoost/);
    }
  });
});

describe('createMemorySearch sequenceContext in both directions', () => {
  const minute = (position: number) => new Date(Date.UTC(2026, 0, 1, 0, position)).toISOString();
  // The answer comes first; the turn after it reacts with the question's words.
  const turns = [
    card('t0', 'Unrelated small talk about the weather.', minute(0)),
    card('t1', 'The red bicycle, finally mine!', minute(1)),
    card('t2', 'Congrats, so that is what you decided to buy!', minute(2)),
    card('t3', 'Anyway, see you on the weekend.', minute(3)),
  ].map((turn): MemoryCard => ({ ...turn, type: 'episode' }));
  const query = 'What did she decide to buy?';

  it('finds the turn before the matching one, with a smaller share than the turn after', async () => {
    const search = createMemorySearch({
      store: listingStore(turns),
      mode: 'bm25',
      sequenceContext: {},
    });
    const hits = await search.search(alice, query, { topK: 5 });
    const byId = new Map(hits.map((hit) => [hit.card.id, hit]));
    const matched = byId.get('t2')!;
    // The defaults with the (lexical) hashing embedder: 0.3 backward, 0.5 forward.
    expect(byId.get('t1')?.context).toBeCloseTo(matched.score * 0.3, 10);
    expect(byId.get('t3')?.context).toBeCloseTo(matched.score * 0.5, 10);
    expect(byId.get('t0')?.context).toBeCloseTo(matched.score * 0.3 * 0.3, 10);
  });

  it('passes nothing backward with backwardWeight 0', async () => {
    const ids = await ranked(turns, query, { sequenceContext: { backwardWeight: 0 } });
    expect(ids).not.toContain('t1');
    expect(ids).toContain('t3');
  });
});

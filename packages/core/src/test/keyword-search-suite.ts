import { describe, expect, it } from 'vitest';
import type { MemoryCard, MemoryStore, Scope } from '../contracts/index.js';
import { createMemorySearch } from '../retrieval/index.js';
import { createFakeClock, type FakeClock } from './clock.js';

/** A store's own keyword search (such as PostgreSQL's `searchKeywords`), best first. */
export type NativeKeywordSearch = (
  scope: Scope,
  query: string,
  k: number,
) => Promise<Array<{ card: MemoryCard }>>;

export interface KeywordSearchSubject {
  store: MemoryStore;
  /** The store's own keyword search, when it has one. @default undefined (core's BM25 only) */
  searchKeywords?: NativeKeywordSearch;
}

/** Creates a fresh, empty store for one test. */
export type KeywordSearchFactory = (options: {
  clock: FakeClock;
}) => KeywordSearchSubject | Promise<KeywordSearchSubject>;

const alice: Scope = { userId: 'alice' };
const bob: Scope = { userId: 'bob' };

/** Cards in Chinese, Japanese, Korean, mixed scripts and English. */
const CARDS = [
  '我们决定用 PostgreSQL 存储会话历史。',
  '机器学习模型的训练需要大量GPU。',
  '東京の会議は来週の月曜日です。',
  '서울 사무실은 다음 달에 이사합니다.',
  'The GPU选型 review is on Friday.',
  'Deploy the billing service every Tuesday.',
] as const;

/** Query → the cards it must find (indexes into CARDS), in any order. */
const QUERIES: ReadonlyArray<readonly [string, readonly number[]]> = [
  ['会话历史', [0]],
  ['机器学习', [1]],
  ['会議', [2]],
  ['月曜日', [2]],
  ['사무실', [3]],
  ['选型', [4]],
  ['GPU', [1, 4]],
  ['ＧＰＵ 选型', [1, 4]],
  ['billing services', [5]],
  ['天气预报', []],
  ['the and of', []],
];

const contents = (cards: ReadonlyArray<{ card: MemoryCard }>) =>
  cards.map((hit) => hit.card.content).sort();

/**
 * Keyword search parity: core's BM25 search over the store (what every store gets) and the store's
 * own keyword search, when it has one, find the same cards for the same queries, CJK included, and
 * never a card of another scope.
 */
export function testKeywordSearch(name: string, create: KeywordSearchFactory): void {
  describe(`Keyword search parity: ${name}`, () => {
    const setup = async () => {
      const subject = await create({ clock: createFakeClock() });
      await subject.store.add(
        alice,
        CARDS.map((content) => ({ content })),
      );
      await subject.store.add(bob, [{ content: '机器学习的会议在东京。' }]);
      return subject;
    };

    it('core BM25 over the store finds CJK, mixed and English cards by their terms', async () => {
      const { store } = await setup();
      const search = createMemorySearch({ store, mode: 'bm25' });
      for (const [query, expected] of QUERIES) {
        const hits = await search.search(alice, query, { topK: CARDS.length });
        expect(contents(hits), query).toEqual(expected.map((index) => CARDS[index]).sort());
      }
    });

    it('the store’s own keyword search finds the same cards as core’s BM25', async (context) => {
      const { store, searchKeywords } = await setup();
      if (!searchKeywords) {
        context.skip();
        return;
      }
      const search = createMemorySearch({ store, mode: 'bm25' });
      for (const [query, expected] of QUERIES) {
        const native = await searchKeywords(alice, query, CARDS.length);
        const bm25 = await search.search(alice, query, { topK: CARDS.length });
        expect(contents(native), query).toEqual(expected.map((index) => CARDS[index]).sort());
        expect(contents(native), query).toEqual(contents(bm25));
        for (const hit of native) expect(hit.card.scope).toEqual(alice);
      }
      // The card that shares the most terms with a query comes first, on both sides.
      const [first] = await searchKeywords(alice, '机器学习模型', 1);
      expect(first?.card.content).toBe(CARDS[1]);
      // Another scope's card with the same words is never found.
      expect(contents(await searchKeywords(bob, '机器学习', 10))).toEqual([
        '机器学习的会议在东京。',
      ]);
    });
  });
}

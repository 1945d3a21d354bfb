/**
 * PostgreSQL's keyword search over one large scope (part of `drivers.bench.ts`): the scope is
 * bulk-loaded with cards of words drawn evenly from a fixed vocabulary, then searched.
 */
import { randomUUID } from 'node:crypto';
import type { MemoryCard } from '../packages/core/src/contracts/index.js';
import { cardSearchText, encodeCard } from '../packages/core/src/driver-kit/index.js';
import { normalizeScope, scopeKey } from '../packages/core/src/storage/index.js';
import { createPostgresStores, loadPg } from '../packages/postgres/src/index.js';
import { keywordVector } from '../packages/postgres/src/keyword-terms.js';
import { round, time } from './latency.js';
import type { BenchSection } from './types.js';

const SYLLABLES = 'ka ri mo tu se na lo vi pe da gu fe zo hi ba ne'.split(' ');
/** 4,096 distinct three-syllable words, so each word is in about 0.2% of the large scope's cards. */
const VOCABULARY = Array.from(
  { length: 16 ** 3 },
  (_, index) =>
    SYLLABLES[index % 16]! + SYLLABLES[Math.floor(index / 16) % 16]! + SYLLABLES[index >> 8]!,
);

/** A well-mixed hash (mulberry32) of a seed, in [0, 1). */
function mix(seed: number): number {
  let value = (seed + 0x6d2b79f5) | 0;
  value = Math.imul(value ^ (value >>> 15), value | 1);
  value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
  return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
}

const vocabularyWord = (seed: number) => VOCABULARY[Math.floor(mix(seed) * VOCABULARY.length)]!;

/** A sentence of 8 words drawn evenly from VOCABULARY. */
const largeScopeSentence = (seed: number) =>
  `Card ${seed}: ${Array.from({ length: 8 }, (_, word) => vocabularyWord(seed * 8 + word)).join(' ')}.`;

/** PostgreSQL's `searchKeywords` over one large scope, filled in batches of 1,000 cards. */
export async function largeScopeSearch(
  connectionString: string,
  cards: number,
  searches: number,
): Promise<BenchSection['rows'][number]> {
  const { Pool } = await loadPg();
  const pool = new Pool({ connectionString });
  const schema = `ctxmem_bench_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const stores = createPostgresStores({ pool, schema });
  await stores.migrate();
  const largeScope = { userId: 'bench-large' };
  try {
    const fillStart = performance.now();
    // Cards as `memory.add` stores them, inserted 10,000 at a time with one unnest statement:
    // what is measured is the search, and adding 100,000 cards one merge at a time is not it.
    const key = scopeKey(normalizeScope(largeScope));
    const now = new Date().toISOString();
    for (let start = 0; start < cards; start += 10_000) {
      const batch = Array.from({ length: Math.min(10_000, cards - start) }, (_, offset) => {
        const card: MemoryCard = {
          id: randomUUID(),
          content: largeScopeSentence(start + offset),
          type: 'todo',
          tags: [],
          createdAt: now,
          updatedAt: now,
          scope: largeScope,
        };
        return card;
      });
      await pool.query(
        `INSERT INTO "${schema}".memory_cards (scope_key, id, card, search_text, search, revision)
         SELECT $1, item.id, item.card, item.search_text, item.search::tsvector, 1
         FROM unnest($2::text[], $3::text[], $4::text[], $5::text[])
           WITH ORDINALITY AS item(id, card, search_text, search, ordinality)
         ORDER BY item.ordinality`,
        [
          key,
          batch.map((card) => card.id),
          batch.map(encodeCard),
          batch.map(cardSearchText),
          batch.map((card) => keywordVector(cardSearchText(card))),
        ],
      );
    }
    await pool.query(`INSERT INTO "${schema}".memory_scopes (scope_key, revision) VALUES ($1, 1)`, [
      key,
    ]);
    const fill = performance.now() - fillStart;
    // What autovacuum does within a minute of a bulk load: without statistics the planner
    // guesses a sequential scan over the fresh table.
    await pool.query(`ANALYZE "${schema}".memory_cards`);
    const query = (index: number) =>
      `${vocabularyWord(-1 - index)} ${vocabularyWord(-1_000_000 - index)}`;
    await stores.memory.searchKeywords(largeScope, query(0), 10);
    const matched = await stores.memory.searchKeywords(largeScope, query(0), cards);
    const search = await time(searches, (index) =>
      stores.memory.searchKeywords(largeScope, query(index), 10),
    );
    const cjk = await time(Math.min(searches, 50), () =>
      stores.memory.searchKeywords(largeScope, '机器学习', 10),
    );
    return {
      'cards in scope': cards,
      'fill (s)': round(fill / 1000, 1),
      'cards matching a query': matched.length,
      'search p50 (ms)': round(search.p50),
      'search p99 (ms)': round(search.p99),
      'CJK query, no match, p50 (ms)': round(cjk.p50),
    };
  } finally {
    await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
    await pool.end();
  }
}

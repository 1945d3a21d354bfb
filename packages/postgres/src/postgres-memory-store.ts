import {
  InvalidArgumentError,
  type MemoryCard,
  type MemoryStore,
  mergeCards,
  type Scope,
} from '@ctxmem/core';
import {
  assertCardIds,
  assertSafeId,
  cardNotFound,
  cardSearchText,
  decodeCard,
  encodeCard,
  isoNow,
  validateDrafts,
} from '@ctxmem/core/driver-kit';
import { inTransaction, type PostgresQueryable, withStorageErrors } from './connection.js';
import { resolveScope, type StoreContext } from './context.js';
import { keywordQuery, keywordVector } from './keyword-terms.js';

/** One result of a keyword search. */
export interface KeywordHit {
  card: MemoryCard;
  /** PostgreSQL's `ts_rank` of the card for the query's terms (higher is better; not normalised). */
  score: number;
}

/** A `MemoryStore` with PostgreSQL full-text search over the current cards. */
export interface PostgresMemoryStore extends MemoryStore {
  /**
   * The `k` current cards of `scope` that share any term with `query`, ranked by `ts_rank`, best
   * first. Terms come from core's `analyzeText`, as in core's BM25 search: stemmed English words
   * without stop words, and 2- to 4-character n-grams of Chinese, Japanese and Korean text, so
   * `机器学习` finds a card about `机器学习模型`. Uses the `tsvector` column and its GIN index, so it
   * does not read every card of the scope. An empty or stop-word-only query finds nothing.
   */
  searchKeywords(scope: Scope, query: string, k?: number): Promise<KeywordHit[]>;
}

/** Scopes whose parsed cards a store keeps in memory. */
const CACHED_SCOPES = 1_000;

/**
 * Memory cards in PostgreSQL. `add` is a read-modify-write in one transaction: it locks the
 * scope's row in `memory_scopes` (an upsert that also moves the scope's `revision`), reads the
 * scope's cards, merges the drafts with core's `mergeCards` (no model call, so the lock is held
 * for milliseconds), and writes the new and changed cards before committing. Writers of one
 * scope, in any process, run one after the other and never lose or duplicate a card; readers
 * never wait.
 *
 * Parsed cards are cached per scope with the revision they belong to: `list` asks for the
 * revision and gets the cards only when another writer changed them, and `add` skips reading
 * when its own cache is current, so neither parses every card of a large scope on every call.
 */
export function createPostgresMemoryStore(
  context: StoreContext,
  generateId: () => string,
): PostgresMemoryStore {
  const { schema } = context;
  const cache = new Map<string, { revision: string; cards: readonly MemoryCard[] }>();

  function remember(key: string, revision: string, cards: readonly MemoryCard[]): void {
    cache.delete(key);
    if (cache.size >= CACHED_SCOPES) cache.delete(cache.keys().next().value!);
    cache.set(key, { revision, cards });
  }

  const copy = (card: MemoryCard): MemoryCard => ({
    ...card,
    tags: [...card.tags],
    scope: { ...card.scope },
  });

  const decodeRows = (rows: Array<{ id: string; card: string }>, key: string, scope: Scope) =>
    rows.map((row) => decodeCard(row.card, scope, `memory card ${row.id} of ${key}`));

  /** Every card of the scope, from the cache when the stored revision still matches it. */
  async function readCards(key: string, scope: Scope): Promise<readonly MemoryCard[]> {
    const pool = await context.pool();
    const cached = cache.get(key);
    // One statement, so the revision and the cards come from one snapshot; the cards are only
    // read (a one-time filter skips the scan) when the revision differs from the cached one.
    const { rows } = await pool.query(
      `SELECT revision::text AS revision, NULL::text AS id, NULL::text AS card, -1::bigint AS position
       FROM ${schema}.memory_scopes WHERE scope_key = $1
       UNION ALL
       SELECT NULL, card.id, card.card, card.position
       FROM ${schema}.memory_cards AS card
       WHERE card.scope_key = $1
         AND (SELECT revision::text FROM ${schema}.memory_scopes WHERE scope_key = $1)
           IS DISTINCT FROM $2::text
       ORDER BY position`,
      [key, cached?.revision ?? null],
    );
    const first = rows[0] as { revision: string } | undefined;
    if (!first) return [];
    if (cached && cached.revision === first.revision) return cached.cards;
    const cards = decodeRows(
      (rows as Array<{ id: string | null; card: string }>).filter(
        (row): row is { id: string; card: string } => row.id !== null,
      ),
      key,
      scope,
    );
    remember(key, first.revision, cards);
    return cards;
  }

  /** Locks the scope's row for this transaction and returns the revision before and after. */
  async function lockScope(
    client: PostgresQueryable,
    key: string,
  ): Promise<{ previous: string; revision: string }> {
    const { rows } = await client.query(
      `INSERT INTO ${schema}.memory_scopes AS current (scope_key, revision) VALUES ($1, 1)
       ON CONFLICT (scope_key) DO UPDATE SET revision = current.revision + 1
       RETURNING revision::text AS revision`,
      [key],
    );
    const revision = String(rows[0].revision);
    return { previous: String(BigInt(revision) - 1n), revision };
  }

  return {
    async add(scope, drafts) {
      const resolved = resolveScope(context, scope);
      if (validateDrafts(drafts).length === 0) return [];
      const { key } = resolved;
      const { revision, cards, results } = await withStorageErrors(
        `add memory cards to ${key}`,
        async () =>
          inTransaction(await context.pool(), async (client) => {
            const lock = await lockScope(client, key);
            const cached = cache.get(key);
            let existing: readonly MemoryCard[];
            if (cached?.revision === lock.previous) {
              existing = cached.cards;
            } else {
              const { rows } = await client.query(
                `SELECT id, card FROM ${schema}.memory_cards WHERE scope_key = $1 ORDER BY position`,
                [key],
              );
              existing = decodeRows(rows, key, resolved.scope);
            }
            const result = mergeCards(existing, drafts, {
              scope: resolved.scope,
              now: isoNow(context.clock),
              generateId,
            });
            // mergeCards returns the same objects for unchanged cards and new ones for changes.
            const changed = result.cards.filter(
              (card, position) => position < existing.length && card !== existing[position],
            );
            const added = result.cards.slice(existing.length);
            const columns = (cards: MemoryCard[]) => [
              cards.map((card) => card.id),
              cards.map(encodeCard),
              cards.map((card) => card.supersededBy ?? null),
              cards.map(cardSearchText),
              cards.map((card) => keywordVector(cardSearchText(card))),
            ];
            if (changed.length > 0) {
              await client.query(
                `UPDATE ${schema}.memory_cards AS target
                 SET card = item.card, superseded_by = item.superseded_by,
                   search_text = item.search_text, search = item.search::tsvector
                 FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
                   AS item(id, card, superseded_by, search_text, search)
                 WHERE target.scope_key = $1 AND target.id = item.id`,
                [key, ...columns(changed)],
              );
            }
            if (added.length > 0) {
              await client.query(
                `INSERT INTO ${schema}.memory_cards
                   (scope_key, id, card, superseded_by, search_text, search)
                 SELECT $1, item.id, item.card, item.superseded_by, item.search_text,
                   item.search::tsvector
                 FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
                   WITH ORDINALITY AS item(id, card, superseded_by, search_text, search, ordinality)
                 ORDER BY item.ordinality`,
                [key, ...columns(added)],
              );
            }
            return { revision: lock.revision, cards: result.cards, results: result.results };
          }),
      );
      // Only after the commit: a rolled-back merge must not become the cached truth.
      remember(key, revision, cards);
      return results.map(copy);
    },

    async list(scope, options) {
      const resolved = resolveScope(context, scope);
      const cards = await withStorageErrors(`list memory cards of ${resolved.key}`, () =>
        readCards(resolved.key, resolved.scope),
      );
      return cards
        .filter((card) => options?.includeSuperseded === true || card.supersededBy === undefined)
        .map(copy);
    },

    async get(scope, id) {
      const resolved = resolveScope(context, scope);
      assertSafeId(id, 'card id');
      const card = await withStorageErrors(
        `read memory card ${id} of ${resolved.key}`,
        async () => {
          const pool = await context.pool();
          const { rows } = await pool.query(
            `SELECT card FROM ${schema}.memory_cards WHERE scope_key = $1 AND id = $2`,
            [resolved.key, id],
          );
          const row = rows[0] as { card: string } | undefined;
          return row
            ? decodeCard(row.card, resolved.scope, `memory card ${id} of ${resolved.key}`)
            : undefined;
        },
      );
      if (!card) throw cardNotFound(id);
      return card;
    },

    async remove(scope, ids) {
      const { key } = resolveScope(context, scope);
      assertCardIds(ids);
      if (ids.length === 0) return;
      const lock = await withStorageErrors(`remove memory cards of ${key}`, async () =>
        inTransaction(await context.pool(), async (client) => {
          // The same scope lock as `add`, so a merge never writes back a card removed meanwhile.
          const locked = await lockScope(client, key);
          await client.query(
            `DELETE FROM ${schema}.memory_cards WHERE scope_key = $1 AND id = ANY($2::text[])`,
            [key, [...ids]],
          );
          return locked;
        }),
      );
      const cached = cache.get(key);
      if (cached?.revision === lock.previous) {
        const removed = new Set(ids);
        remember(
          key,
          lock.revision,
          cached.cards.filter((card) => !removed.has(card.id)),
        );
      } else {
        cache.delete(key);
      }
    },

    async searchKeywords(scope, query, k = 10) {
      const resolved = resolveScope(context, scope);
      if (typeof query !== 'string') {
        throw new InvalidArgumentError({
          message: `query must be a string; got ${typeof query}.`,
          argument: 'query',
        });
      }
      if (typeof k !== 'number' || Number.isNaN(k) || k < 0) {
        throw new InvalidArgumentError({
          message: `k must be a number >= 0; got ${String(k)}.`,
          argument: 'k',
        });
      }
      const limit = Number.isFinite(k) ? Math.floor(k) : null;
      if (limit === 0 || query.trim() === '') return [];
      const terms = keywordQuery(query);
      if (terms === undefined) return [];
      return withStorageErrors(`search memory cards of ${resolved.key}`, async () => {
        const pool = await context.pool();
        const { rows } = await pool.query(
          `SELECT card.id, card.card, ts_rank(card.search, $2::tsquery) AS score
           FROM ${schema}.memory_cards AS card
           WHERE card.scope_key = $1 AND card.superseded_by IS NULL AND card.search @@ $2::tsquery
           ORDER BY score DESC, card.position
           LIMIT $3`,
          [resolved.key, terms, limit],
        );
        return (rows as Array<{ id: string; card: string; score: number }>).map((row) => ({
          card: decodeCard(row.card, resolved.scope, `memory card ${row.id} of ${resolved.key}`),
          score: Number(row.score),
        }));
      });
    },
  };
}

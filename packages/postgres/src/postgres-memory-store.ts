import {
  assertSafeId,
  InvalidArgumentError,
  isoNow,
  type MemoryCard,
  type MemoryStore,
  mergeCards,
  type Scope,
  validateDrafts,
} from '@ctxmem/core';
import { inTransaction, withStorageErrors } from './connection.js';
import { resolveScope, type StoreContext } from './context.js';
import { assertCardIds, cardNotFound, cardSearchText, decodeCard, encodeCard } from './records.js';

/** One result of a keyword search. */
export interface KeywordHit {
  card: MemoryCard;
  /** PostgreSQL's `ts_rank` of the card for the query (higher is better; not normalised). */
  score: number;
}

/** A `MemoryStore` with PostgreSQL full-text search over the current cards. */
export interface PostgresMemoryStore extends MemoryStore {
  /**
   * The `k` current cards of `scope` that best match any word of `query` (English stemming and
   * stop words, ranked by `ts_rank`), best first. Uses the `tsvector` column and its GIN index, so
   * it does not read every card of the scope. An empty or stop-word-only query finds nothing.
   */
  searchKeywords(scope: Scope, query: string, k?: number): Promise<KeywordHit[]>;
}

/**
 * Memory cards in PostgreSQL. `add` is a read-modify-write in one transaction: it locks the
 * scope's row in `memory_scopes` (an upsert), reads the scope's cards, merges the drafts with
 * core's `mergeCards` (no model call, so the lock is held for milliseconds), and writes the new
 * and changed cards before committing. Writers of one scope, in any process, run one after the
 * other and never lose or duplicate a card; readers never wait.
 */
export function createPostgresMemoryStore(
  context: StoreContext,
  generateId: () => string,
): PostgresMemoryStore {
  const { schema } = context;

  async function readCards(
    key: string,
    scope: Scope,
    includeSuperseded: boolean,
  ): Promise<MemoryCard[]> {
    const pool = await context.pool();
    const { rows } = await pool.query(
      `SELECT id, card FROM ${schema}.memory_cards
       WHERE scope_key = $1 AND ($2 OR superseded_by IS NULL) ORDER BY position`,
      [key, includeSuperseded],
    );
    return (rows as Array<{ id: string; card: string }>).map((row) =>
      decodeCard(row.card, scope, `memory card ${row.id} of ${key}`),
    );
  }

  return {
    async add(scope, drafts) {
      const resolved = resolveScope(context, scope);
      if (validateDrafts(drafts).length === 0) return [];
      const { key } = resolved;
      return withStorageErrors(`add memory cards to ${key}`, async () =>
        inTransaction(await context.pool(), async (client) => {
          await client.query(
            `INSERT INTO ${schema}.memory_scopes AS current (scope_key, revision) VALUES ($1, 1)
             ON CONFLICT (scope_key) DO UPDATE SET revision = current.revision + 1`,
            [key],
          );
          const { rows } = await client.query(
            `SELECT id, card FROM ${schema}.memory_cards WHERE scope_key = $1 ORDER BY position`,
            [key],
          );
          const existing = (rows as Array<{ id: string; card: string }>).map((row) =>
            decodeCard(row.card, resolved.scope, `memory card ${row.id} of ${key}`),
          );
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
          ];
          if (changed.length > 0) {
            await client.query(
              `UPDATE ${schema}.memory_cards AS target
               SET card = item.card, superseded_by = item.superseded_by, search_text = item.search_text
               FROM unnest($2::text[], $3::text[], $4::text[], $5::text[])
                 AS item(id, card, superseded_by, search_text)
               WHERE target.scope_key = $1 AND target.id = item.id`,
              [key, ...columns(changed)],
            );
          }
          if (added.length > 0) {
            await client.query(
              `INSERT INTO ${schema}.memory_cards (scope_key, id, card, superseded_by, search_text)
               SELECT $1, item.id, item.card, item.superseded_by, item.search_text
               FROM unnest($2::text[], $3::text[], $4::text[], $5::text[])
                 WITH ORDINALITY AS item(id, card, superseded_by, search_text, ordinality)
               ORDER BY item.ordinality`,
              [key, ...columns(added)],
            );
          }
          return result.results.map((card) => ({
            ...card,
            tags: [...card.tags],
            scope: { ...card.scope },
          }));
        }),
      );
    },

    async list(scope, options) {
      const resolved = resolveScope(context, scope);
      return withStorageErrors(`list memory cards of ${resolved.key}`, () =>
        readCards(resolved.key, resolved.scope, options?.includeSuperseded === true),
      );
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
      await withStorageErrors(`remove memory cards of ${key}`, async () => {
        await inTransaction(await context.pool(), async (client) => {
          // The same scope lock as `add`, so a merge never writes back a card removed meanwhile.
          await client.query(
            `INSERT INTO ${schema}.memory_scopes AS current (scope_key, revision) VALUES ($1, 1)
             ON CONFLICT (scope_key) DO UPDATE SET revision = current.revision + 1`,
            [key],
          );
          await client.query(
            `DELETE FROM ${schema}.memory_cards WHERE scope_key = $1 AND id = ANY($2::text[])`,
            [key, [...ids]],
          );
        });
      });
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
      const text = query.replaceAll('\u0000', ' ');
      return withStorageErrors(`search memory cards of ${resolved.key}`, async () => {
        const pool = await context.pool();
        // Any word may match (an OR of the query's lexemes), as a keyword retriever needs; the
        // lexemes are quoted as tsquery literals so no word is read as an operator.
        const { rows } = await pool.query(
          `WITH query AS (
             SELECT nullif(array_to_string(array(
               SELECT '''' || replace(replace(lexeme, '\\', '\\\\'), '''', '''''') || ''''
               FROM unnest(to_tsvector('english'::regconfig, $2))
             ), ' | '), '')::tsquery AS terms
           )
           SELECT card.id, card.card, ts_rank(card.search, query.terms) AS score
           FROM ${schema}.memory_cards AS card, query
           WHERE card.scope_key = $1 AND card.superseded_by IS NULL AND card.search @@ query.terms
           ORDER BY score DESC, card.position
           LIMIT $3`,
          [resolved.key, text, limit],
        );
        return (rows as Array<{ id: string; card: string; score: number }>).map((row) => ({
          card: decodeCard(row.card, resolved.scope, `memory card ${row.id} of ${resolved.key}`),
          score: Number(row.score),
        }));
      });
    },
  };
}

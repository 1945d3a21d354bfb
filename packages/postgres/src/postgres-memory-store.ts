import { InvalidArgumentError, type MemoryCard, type MemoryStore, type Scope } from '@ctxmem/core';
import {
  addSynced,
  applyRemoval,
  assertCardIds,
  cardSearchText,
  createScopeQueue,
  createSyncedCardCache,
  decodeCard,
  encodeCard,
  getStoredCard,
  isoNow,
  listedCards,
  type SyncedCards,
  type SyncedCommit,
  type SyncedCommitOutcome,
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

/** A stored card as a catch-up read returns it. */
interface ChangedRow {
  id: string;
  card: string;
  /** Whether it was written after the revision asked about (false: only asked for by id). */
  changed: boolean;
}

/**
 * Memory cards in PostgreSQL, one row per card, with a row per scope in `memory_scopes` holding
 * the scope's revision: every committed add or remove moves it by one, and every card row carries
 * the revision that last wrote it.
 *
 * Each store keeps the scopes it uses indexed in memory (core's card index, see
 * `@ctxmem/core/driver-kit`'s synced cards) and catches up by reading only the cards written after
 * the revision it has, lazily. `add` merges the drafts into that index with core's rules (no model
 * call) and commits with one call of `commit_memory_card_writes` (see `commit-memory-cards.ts`):
 * under the scope's row lock, held only while that statement runs, it writes the cards unless a
 * card written since the merge's revision carries a key the merge looked up (driver-kit's conflict
 * keys). Otherwise it answers with what changed and the stored form of what the merge touched, and
 * the add merges again. A commit does not bring back other writers' cards: they are read when a
 * key collides or the scope is listed. So an add neither reads nor compares against the whole
 * scope, writers adding unrelated cards to one scope neither merge again nor index each other's
 * cards, writers of one scope never lose or duplicate a card, and readers never wait. `remove`
 * moves the scope's reset revision (caches older than it read the scope again) and drops the
 * scope's conflict keys, which no later commit needs (see driver-kit's `conflict-keys.ts`). Adds
 * of one process queued behind each other on one scope commit as one (driver-kit's
 * `createScopeQueue`).
 */
export function createPostgresMemoryStore(
  context: StoreContext,
  generateId: () => string,
): PostgresMemoryStore {
  const { schema } = context;
  const cache = createSyncedCardCache();
  // Calls of this process on one scope run one at a time (the cached cards hold an add's merge
  // until it commits, which no other call may merge into or list), adds queued next to each other
  // as one commit.
  const queue = createScopeQueue();

  const decodeRow = (row: { id: string; card: string }, key: string, scope: Scope) =>
    decodeCard(row.card, scope, `memory card ${row.id} of ${key}`);

  /**
   * The scope's revision and the cards written after `since` (every card when `since` is older
   * than the scope's last removal, or -1), with the stored form of the cards `ids`, in stored
   * order. One statement, so the revision and the cards come from one snapshot.
   */
  async function readChanges(
    queryable: PostgresQueryable,
    key: string,
    since: number,
    ids: readonly string[] = [],
  ): Promise<{ revision: number; complete: boolean; rows: ChangedRow[] }> {
    const { rows } = await queryable.query(
      `WITH head AS (
         SELECT revision,
           CASE WHEN reset_revision > $2 OR revision < $2 THEN -1 ELSE $2 END AS since
         FROM ${schema}.memory_scopes WHERE scope_key = $1
       )
       SELECT head.revision::text AS revision, head.since = -1 AS complete,
         NULL::text AS id, NULL::text AS card, NULL::boolean AS changed, -1::bigint AS position
       FROM head
       UNION ALL
       SELECT NULL, NULL, card.id, card.card, card.revision > head.since, card.position
       FROM ${schema}.memory_cards AS card, head
       WHERE card.scope_key = $1 AND (card.revision > head.since OR card.id = ANY($3::text[]))
       ORDER BY position`,
      [key, since, [...ids]],
    );
    const first = rows[0] as { revision: string; complete: boolean } | undefined;
    if (!first) return { revision: 0, complete: true, rows: [] };
    return {
      revision: Number(first.revision),
      complete: first.complete,
      rows: (rows as ChangedRow[]).slice(1),
    };
  }

  /** The scope's synced cards, caught up with what other writers committed. */
  async function synced(
    queryable: PostgresQueryable,
    key: string,
    scope: Scope,
  ): Promise<SyncedCards> {
    const cached = cache.get(key);
    const read = await readChanges(queryable, key, cached?.revision ?? -1);
    return cache.update(key, {
      revision: read.revision,
      generation: '',
      complete: read.complete,
      cards: read.rows.map((row) => decodeRow(row, key, scope)),
    });
  }

  /** Commits an add's merge with `commit_memory_card_writes` (see `commit-memory-cards.ts`). */
  async function commit(
    key: string,
    scope: Scope,
    { revision, writes, lookedUp, writtenKeys }: SyncedCommit,
  ): Promise<SyncedCommitOutcome> {
    const pool = await context.pool();
    const searchTexts = writes.map(cardSearchText);
    const { rows } = await pool.query(
      `SELECT committed, revision::text AS revision, complete, id, card, changed
       FROM ${schema}.commit_memory_card_writes($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        key,
        revision,
        [...lookedUp],
        writes.map((card) => card.id),
        writes.map(encodeCard),
        writes.map((card) => card.supersededBy ?? null),
        searchTexts,
        searchTexts.map((text) => keywordVector(text)),
        [...writtenKeys],
      ],
    );
    const [head, ...cardRows] = rows as Array<
      ChangedRow & { committed: boolean; revision: string; complete: boolean }
    >;
    if (head!.committed) {
      return { committed: true, revision: Number(head!.revision), generation: '' };
    }
    const decoded = cardRows.map((row) => ({ row, card: decodeRow(row, key, scope) }));
    const written = new Set(writes.map((card) => card.id));
    return {
      committed: false,
      changes: {
        revision: Number(head!.revision),
        generation: '',
        complete: head!.complete,
        cards: decoded.filter(({ row }) => row.changed).map(({ card }) => card),
      },
      stored: decoded.filter(({ row }) => written.has(row.id)).map(({ card }) => card),
    };
  }

  return {
    async add(scope, drafts) {
      const resolved = resolveScope(context, scope);
      const valid = validateDrafts(drafts);
      if (valid.length === 0) return [];
      const { key } = resolved;
      return queue.add(key, valid, (joined) =>
        withStorageErrors(`add memory cards to ${key}`, async () =>
          addSynced({
            cache,
            key,
            drafts: joined,
            mergeOptions: () => ({ scope: resolved.scope, now: isoNow(context.clock), generateId }),
            load: async () => synced(await context.pool(), key, resolved.scope),
            commit: (merge) => commit(key, resolved.scope, merge),
          }),
        ),
      );
    },

    async list(scope, options) {
      const resolved = resolveScope(context, scope);
      const cards = await queue.run(resolved.key, () =>
        withStorageErrors(`list memory cards of ${resolved.key}`, async () =>
          synced(await context.pool(), resolved.key, resolved.scope),
        ),
      );
      return listedCards(cards, options?.includeSuperseded);
    },

    async get(scope, id) {
      const { key, scope: normalized } = resolveScope(context, scope);
      return getStoredCard({ id, scope: normalized, key }, () =>
        withStorageErrors(`read memory card ${id} of ${key}`, async () => {
          const pool = await context.pool();
          const { rows } = await pool.query(
            `SELECT card FROM ${schema}.memory_cards WHERE scope_key = $1 AND id = $2`,
            [key, id],
          );
          return (rows[0] as { card: string } | undefined)?.card;
        }),
      );
    },

    async remove(scope, ids) {
      const { key } = resolveScope(context, scope);
      assertCardIds(ids);
      if (ids.length === 0) return;
      await queue.run(key, () =>
        withStorageErrors(`remove memory cards of ${key}`, async () => {
          const revision = await inTransaction(await context.pool(), async (client) => {
            // The scope's row lock, as `add` takes it, so a merge never writes back a card
            // removed meanwhile; the reset revision makes every other process read the scope again.
            const { rows } = await client.query(
              `INSERT INTO ${schema}.memory_scopes AS current (scope_key, revision, reset_revision)
               VALUES ($1, 1, 1)
               ON CONFLICT (scope_key) DO UPDATE
                 SET revision = current.revision + 1, reset_revision = current.revision + 1
               RETURNING revision::text AS revision`,
              [key],
            );
            await client.query(
              `DELETE FROM ${schema}.memory_cards WHERE scope_key = $1 AND id = ANY($2::text[])`,
              [key, [...ids]],
            );
            // The scope's conflict keys go (see driver-kit's `conflict-keys.ts`): a commit merged
            // before this removal conflicts whole, one merged after it checks only later keys.
            await client.query(`DELETE FROM ${schema}.memory_card_keys WHERE scope_key = $1`, [
              key,
            ]);
            return Number(rows[0].revision);
          });
          applyRemoval(cache, key, ids, { revision, generation: '' });
        }),
      );
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

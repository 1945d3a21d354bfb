import {
  InvalidArgumentError,
  type MemoryCard,
  type MemoryCardDraft,
  type MemoryStore,
  type Scope,
  StorageError,
} from '@ctxmem/core';
import {
  assertCardIds,
  assertSafeId,
  cardNotFound,
  cardSearchText,
  createKeyedQueue,
  createSyncedCardCache,
  decodeCard,
  encodeCard,
  isoNow,
  mergeSynced,
  rollBack,
  type SyncedCards,
  type SyncedMerge,
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

/**
 * How long, in ms, adds to a scope take its lock at once after an add met another writer: under
 * contention an optimistic commit mostly loses, and costs a round trip before the lock anyway.
 */
const CONTENDED_MS = 1_000;
/** Scopes remembered as contended. */
const CONTENDED_SCOPES = 1_000;

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
 * the revision it has. `add` merges the drafts into that index with core's rules (no model call)
 * and commits with one statement that moves the scope's revision only if it is still the one the
 * merge saw, writing the new and changed cards with it; when another writer got there first, it
 * reads what changed, puts back what it touched, and merges again. So an add neither reads nor
 * compares against the whole scope, writers of one scope in any process never lose or duplicate a
 * card, the scope's row is locked only while that one statement runs, and readers never wait.
 * `remove` moves the scope's reset revision: caches older than it read the scope again.
 */
export function createPostgresMemoryStore(
  context: StoreContext,
  generateId: () => string,
): PostgresMemoryStore {
  const { schema } = context;
  const cache = createSyncedCardCache();
  // Calls of this process on one scope run one at a time: the cached cards hold an add's merge
  // until it commits, which no other call may merge into or list.
  const queued = createKeyedQueue();

  const copy = (card: MemoryCard): MemoryCard => ({
    ...card,
    tags: [...card.tags],
    scope: { ...card.scope },
  });

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

  /**
   * Writes `cards` at the revision after `expected`, only if the scope is still at `expected`.
   * Returns the new revision, or undefined when another writer moved the scope first.
   */
  async function commit(
    queryable: PostgresQueryable,
    key: string,
    expected: number,
    cards: readonly MemoryCard[],
  ): Promise<number | undefined> {
    const { rows } = await queryable.query(
      `WITH bump AS (
         INSERT INTO ${schema}.memory_scopes AS current (scope_key, revision) VALUES ($1, $2 + 1)
         ON CONFLICT (scope_key) DO UPDATE SET revision = current.revision + 1
           WHERE current.revision = $2
         RETURNING revision
       ), written AS (
         INSERT INTO ${schema}.memory_cards AS target
           (scope_key, id, card, superseded_by, search_text, search, revision)
         SELECT $1, item.id, item.card, item.superseded_by, item.search_text,
           item.search::tsvector, bump.revision
         FROM bump CROSS JOIN
           unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[])
             WITH ORDINALITY AS item(id, card, superseded_by, search_text, search, ordinality)
         ORDER BY item.ordinality
         ON CONFLICT (scope_key, id) DO UPDATE SET card = excluded.card,
           superseded_by = excluded.superseded_by, search_text = excluded.search_text,
           search = excluded.search, revision = excluded.revision
         RETURNING 1
       )
       SELECT bump.revision::text AS revision, (SELECT count(*) FROM written) AS written
       FROM bump`,
      [
        key,
        expected,
        cards.map((card) => card.id),
        cards.map(encodeCard),
        cards.map((card) => card.supersededBy ?? null),
        cards.map(cardSearchText),
        cards.map((card) => keywordVector(cardSearchText(card))),
      ],
    );
    const row = rows[0] as { revision: string } | undefined;
    return row ? Number(row.revision) : undefined;
  }

  /** Scopes whose last add met another writer, until when: their adds take the lock at once. */
  const contended = new Map<string, number>();

  /** `add` once the calls before it on the scope are done. */
  async function addQueued(
    resolved: { key: string; scope: Scope },
    drafts: readonly MemoryCardDraft[],
  ): Promise<MemoryCard[]> {
    const { key } = resolved;
    return withStorageErrors(`add memory cards to ${key}`, async () => {
      const pool = await context.pool();
      const options = () => ({ scope: resolved.scope, now: isoNow(context.clock), generateId });
      const cards = cache.get(key) ?? (await synced(pool, key, resolved.scope));
      let merge: SyncedMerge | undefined;
      if ((contended.get(key) ?? 0) < Date.now()) {
        contended.delete(key);
        // Optimistic: one statement that commits only if no other writer moved the scope.
        merge = mergeSynced(cards.index, drafts, options());
        if (merge.writes.length === 0) return merge.results.map(copy);
        const revision = await forgetOnFailure(key, () =>
          commit(pool, key, cards.revision, merge!.writes),
        );
        if (revision !== undefined) {
          cards.revision = revision;
          return merge.results.map(copy);
        }
        if (contended.size >= CONTENDED_SCOPES) contended.delete(contended.keys().next().value!);
        contended.set(key, Date.now() + CONTENDED_MS);
      }
      // Another writer moved the scope first, or does so often: lock the scope's row, catch up,
      // merge and commit under the lock. Retrying optimistically would mostly lose again.
      const undone = merge;
      return forgetOnFailure(key, () =>
        inTransaction(pool, async (client) => {
          await client.query(
            `INSERT INTO ${schema}.memory_scopes AS current (scope_key, revision) VALUES ($1, 0)
             ON CONFLICT (scope_key) DO UPDATE SET revision = current.revision`,
            [key],
          );
          const written = undone?.writes.map((card) => card.id) ?? [];
          const read = await readChanges(client, key, cards.revision, written);
          const decoded = read.rows.map((row) => ({
            row,
            card: decodeRow(row, key, resolved.scope),
          }));
          if (undone) {
            const touched = new Set(written);
            rollBack(
              cards.index,
              undone.writes,
              decoded.filter(({ row }) => touched.has(row.id)).map(({ card }) => card),
            );
          }
          const current = cache.update(key, {
            revision: read.revision,
            generation: '',
            complete: read.complete,
            cards: decoded.filter(({ row }) => row.changed).map(({ card }) => card),
          });
          const locked = mergeSynced(current.index, drafts, options());
          if (locked.writes.length === 0) return locked.results.map(copy);
          const revision = await commit(client, key, current.revision, locked.writes);
          if (revision === undefined) {
            throw new StorageError({
              message: `The revision of ${key} moved while its row was locked.`,
              path: key,
            });
          }
          current.revision = revision;
          return locked.results.map(copy);
        }),
      );
    });
  }

  /**
   * Runs a write; when it fails, whether it committed is unknown (the connection may have dropped
   * after COMMIT) and the cached cards may hold its merge: the scope is forgotten, so the next
   * call reads it as stored.
   */
  async function forgetOnFailure<Result>(
    key: string,
    work: () => Promise<Result>,
  ): Promise<Result> {
    try {
      return await work();
    } catch (error) {
      cache.delete(key);
      throw error;
    }
  }

  return {
    async add(scope, drafts) {
      const resolved = resolveScope(context, scope);
      if (validateDrafts(drafts).length === 0) return [];
      const { key } = resolved;
      return queued(key, () => addQueued(resolved, drafts));
    },

    async list(scope, options) {
      const resolved = resolveScope(context, scope);
      const cards = await queued(resolved.key, () =>
        withStorageErrors(
          `list memory cards of ${resolved.key}`,
          async () => (await synced(await context.pool(), resolved.key, resolved.scope)).index,
        ),
      );
      return cards
        .cards()
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
      await queued(key, () =>
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
            return Number(rows[0].revision);
          });
          const cached = cache.get(key);
          if (cached?.revision === revision - 1) {
            cached.index.remove(ids);
            cached.revision = revision;
          } else {
            cache.delete(key);
          }
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

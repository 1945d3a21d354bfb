import {
  type CompleteHistoryStore,
  ConflictError,
  type StoredMessage,
  type WorkingState,
} from '@ctxmem/core';
import {
  assertAppendPosition,
  assertExpectedVersion,
  decodeState,
  encodeState,
  isoNow,
  normalizeRange,
  normalizeTurns,
  numberPrepared,
  type PreparedMessage,
  parseMessage,
  planPositionalAppend,
  prepareMessages,
} from '@ctxmem/core/driver-kit';
import { inTransaction, type PostgresQueryable, withStorageErrors } from './connection.js';
import { resolveScope, type StoreContext } from './context.js';

interface MessageRow {
  message_index: number;
  turn: number;
  created_at: string;
  message: string;
}

/**
 * The original history and working state in PostgreSQL.
 *
 * - `append` is one statement: it moves the scope's head row (`history_heads`, an upsert that
 *   locks the row until commit) by the batch size and inserts the batch at the positions it
 *   reserved, so concurrent appends from any number of processes get contiguous, gap-free indexes
 *   and each batch stays in one piece. A positional append (`at`) is one transaction that locks
 *   the head row first, compares the stored messages it overlaps, then inserts the rest.
 * - `setState` is a compare-and-set on the `version` column (`UPDATE ... WHERE version = $expected`,
 *   or an insert that does nothing when a row exists): exactly one writer of a version wins, the
 *   others get `ConflictError`.
 */
export function createPostgresHistoryStore(
  context: StoreContext,
  generateId: () => string,
): CompleteHistoryStore {
  const { schema } = context;

  const toStored = (row: MessageRow, where: string): StoredMessage => ({
    index: row.message_index,
    turn: row.turn,
    createdAt: row.created_at,
    message: parseMessage(row.message, where),
  });

  async function readState(key: string): Promise<WorkingState | undefined> {
    const pool = await context.pool();
    const { rows } = await pool.query(
      `SELECT version, state FROM ${schema}.working_states WHERE scope_key = $1`,
      [key],
    );
    const row = rows[0] as { version: number; state: string } | undefined;
    return row ? decodeState(row.state, row.version, `working state of ${key}`) : undefined;
  }

  /**
   * One statement: moves the scope's head row by the batch size (an upsert that locks the row until
   * commit) and inserts the batch at the positions it reserved. With `expectedCount`, only when
   * the history has that length: `undefined` (nothing written) otherwise.
   */
  async function insertBatch(
    queryable: PostgresQueryable,
    key: string,
    prepared: readonly PreparedMessage[],
    createdAt: string,
  ): Promise<StoredMessage[]>;
  async function insertBatch(
    queryable: PostgresQueryable,
    key: string,
    prepared: readonly PreparedMessage[],
    createdAt: string,
    expectedCount: number,
  ): Promise<StoredMessage[] | undefined>;
  async function insertBatch(
    queryable: PostgresQueryable,
    key: string,
    prepared: readonly PreparedMessage[],
    createdAt: string,
    expectedCount?: number,
  ): Promise<StoredMessage[] | undefined> {
    // Turn of each message relative to the turn the history ended in.
    const turnOffsets: number[] = [];
    let turnsStarted = 0;
    for (const entry of prepared) {
      if (entry.startsTurn) turnsStarted++;
      turnOffsets.push(turnsStarted);
    }
    // With an expected count, the head moves only when the history has exactly that length
    // (created only when that is 0); otherwise nothing is inserted and no row comes back.
    const head =
      expectedCount === undefined || expectedCount === 0
        ? `INSERT INTO ${schema}.history_heads AS current (scope_key, next_index, turn)
           VALUES ($1, $2, $3)
           ON CONFLICT (scope_key) DO UPDATE
             SET next_index = current.next_index + $2, turn = current.turn + $3
             ${expectedCount === 0 ? 'WHERE current.next_index = 0' : ''}
           RETURNING next_index - $2 AS start_index, turn - $3 AS start_turn`
        : `UPDATE ${schema}.history_heads
           SET next_index = next_index + $2, turn = turn + $3
           WHERE scope_key = $1 AND next_index = $7
           RETURNING next_index - $2 AS start_index, turn - $3 AS start_turn`;
    const { rows } = await queryable.query(
      `WITH head AS (${head})
       INSERT INTO ${schema}.history_messages (scope_key, message_index, turn, created_at, message)
       SELECT $1, head.start_index + item.ordinality - 1, head.start_turn + item.turn_offset, $4, item.message
       FROM head, unnest($5::integer[], $6::text[]) WITH ORDINALITY AS item(turn_offset, message, ordinality)
       RETURNING message_index, turn`,
      [
        key,
        prepared.length,
        turnsStarted,
        createdAt,
        turnOffsets,
        prepared.map((p) => p.json),
        ...(expectedCount ? [expectedCount] : []),
      ],
    );
    if (rows.length === 0) return undefined;
    const first = (rows as Array<{ message_index: number; turn: number }>).reduce((lowest, row) =>
      row.message_index < lowest.message_index ? row : lowest,
    );
    const startTurn = first.turn - turnOffsets[0]!;
    return numberPrepared(prepared, { nextIndex: first.message_index, turn: startTurn }, createdAt);
  }

  return {
    async append(scope, messages, { at } = {}) {
      const { key } = resolveScope(context, scope);
      const prepared = prepareMessages(messages, generateId);
      if (at !== undefined) assertAppendPosition(at);
      if (prepared.length === 0 && at === undefined) return [];
      const createdAt = isoNow(context.clock);
      return withStorageErrors(`append to the history of ${key}`, async () => {
        const pool = await context.pool();
        if (at === undefined) return insertBatch(pool, key, prepared, createdAt);
        // The usual case, one statement: the history ends where the caller's append starts.
        if (prepared.length > 0) {
          const appended = await insertBatch(pool, key, prepared, createdAt, at);
          if (appended) return appended;
        }
        // Otherwise another writer appended since (or there is a gap): compare under the lock.
        return inTransaction(pool, async (client) => {
          // Lock the head row (creating it if needed) until commit: concurrent appends to this
          // scope, from any process, wait here, so the comparison below sees the final history.
          const { rows: heads } = await client.query(
            `INSERT INTO ${schema}.history_heads AS current (scope_key, next_index, turn)
             VALUES ($1, 0, 0)
             ON CONFLICT (scope_key) DO UPDATE SET next_index = current.next_index
             RETURNING next_index`,
            [key],
          );
          const count = Number((heads[0] as { next_index: number }).next_index);
          let skipped: StoredMessage[] = [];
          if (at < count && prepared.length > 0) {
            const { rows } = await client.query(
              `SELECT message_index, turn, created_at, message FROM ${schema}.history_messages
               WHERE scope_key = $1 AND message_index >= $2 AND message_index < $3
               ORDER BY message_index`,
              [key, at, at + prepared.length],
            );
            skipped = (rows as MessageRow[]).map((row) =>
              toStored(row, `history message ${row.message_index} of ${key}`),
            );
          }
          const stored = planPositionalAppend(
            at,
            count,
            skipped.map((entry) => entry.message),
            prepared.map((entry) => entry.message),
          );
          const fresh = prepared.slice(stored);
          if (fresh.length === 0) return skipped;
          return [...skipped, ...(await insertBatch(client, key, fresh, createdAt))];
        });
      });
    },

    async read(scope, range) {
      const { key } = resolveScope(context, scope);
      const { from, to } = normalizeRange(range);
      return withStorageErrors(`read the history of ${key}`, async () => {
        const pool = await context.pool();
        const { rows } = await pool.query(
          `SELECT message_index, turn, created_at, message FROM ${schema}.history_messages
           WHERE scope_key = $1 AND message_index >= $2 AND ($3::integer IS NULL OR message_index < $3)
           ORDER BY message_index`,
          [key, from, to ?? null],
        );
        return (rows as MessageRow[]).map((row) =>
          toStored(row, `history message ${row.message_index} of ${key}`),
        );
      });
    },

    async readTurns(scope, turns) {
      const { key } = resolveScope(context, scope);
      const wanted = normalizeTurns(turns);
      if (wanted.length === 0) return [];
      return withStorageErrors(`read turns of ${key}`, async () => {
        const pool = await context.pool();
        const { rows } = await pool.query(
          `SELECT message_index, turn, created_at, message FROM ${schema}.history_messages
           WHERE scope_key = $1 AND turn = ANY($2::integer[])
           ORDER BY message_index`,
          [key, wanted],
        );
        return (rows as MessageRow[]).map((row) =>
          toStored(row, `history message ${row.message_index} of ${key}`),
        );
      });
    },

    async count(scope) {
      const { key } = resolveScope(context, scope);
      return withStorageErrors(`count the history of ${key}`, async () => {
        const pool = await context.pool();
        const { rows } = await pool.query(
          `SELECT next_index FROM ${schema}.history_heads WHERE scope_key = $1`,
          [key],
        );
        return Number(rows[0]?.next_index ?? 0);
      });
    },

    async getState(scope) {
      const { key } = resolveScope(context, scope);
      return withStorageErrors(`read the working state of ${key}`, () => readState(key));
    },

    async setState(scope, state, expectedVersion) {
      const { key } = resolveScope(context, scope);
      assertExpectedVersion(expectedVersion);
      const encoded = encodeState(state);
      return withStorageErrors(`write the working state of ${key}`, async () => {
        const pool = await context.pool();
        const { rows } =
          expectedVersion === 0
            ? await pool.query(
                `INSERT INTO ${schema}.working_states (scope_key, version, state) VALUES ($1, 1, $2)
                 ON CONFLICT (scope_key) DO NOTHING RETURNING version`,
                [key, encoded],
              )
            : await pool.query(
                `UPDATE ${schema}.working_states SET version = version + 1, state = $3, updated_at = now()
                 WHERE scope_key = $1 AND version = $2 RETURNING version`,
                [key, expectedVersion, encoded],
              );
        const written = rows[0] as { version: number } | undefined;
        if (written) return written.version;
        const current = await pool.query(
          `SELECT version FROM ${schema}.working_states WHERE scope_key = $1`,
          [key],
        );
        const actualVersion = Number(current.rows[0]?.version ?? 0);
        throw new ConflictError({
          message: `The working state changed: expected version ${expectedVersion}, found ${actualVersion}.`,
          expectedVersion,
          actualVersion,
        });
      });
    },

    async clear(scope) {
      const { key } = resolveScope(context, scope);
      await withStorageErrors(`clear the history of ${key}`, async () => {
        await inTransaction(await context.pool(), async (client) => {
          // Lock the head first (creating it if needed), so an append in flight finishes before
          // its messages are deleted, and one that starts now waits and begins again at 0.
          await client.query(
            `INSERT INTO ${schema}.history_heads AS current (scope_key, next_index, turn)
             VALUES ($1, 0, 0)
             ON CONFLICT (scope_key) DO UPDATE SET next_index = current.next_index`,
            [key],
          );
          await client.query(`DELETE FROM ${schema}.history_messages WHERE scope_key = $1`, [key]);
          await client.query(`DELETE FROM ${schema}.history_heads WHERE scope_key = $1`, [key]);
          await client.query(`DELETE FROM ${schema}.working_states WHERE scope_key = $1`, [key]);
        });
      });
    },
  };
}

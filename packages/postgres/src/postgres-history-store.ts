import {
  ConflictError,
  type HistoryStore,
  isoNow,
  type StoredMessage,
  type WorkingState,
} from '@ctxmem/core';
import {
  assertExpectedVersion,
  decodeState,
  encodeState,
  normalizeRange,
  normalizeTurns,
  numberPrepared,
  parseMessage,
  prepareMessages,
} from '@ctxmem/core/driver-kit';
import { inTransaction, withStorageErrors } from './connection.js';
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
 *   and each batch stays in one piece.
 * - `setState` is a compare-and-set on the `version` column (`UPDATE ... WHERE version = $expected`,
 *   or an insert that does nothing when a row exists): exactly one writer of a version wins, the
 *   others get `ConflictError`.
 */
export function createPostgresHistoryStore(
  context: StoreContext,
  generateId: () => string,
): HistoryStore {
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

  return {
    async append(scope, messages) {
      const { key } = resolveScope(context, scope);
      const prepared = prepareMessages(messages, generateId);
      if (prepared.length === 0) return [];
      const createdAt = isoNow(context.clock);
      // Turn of each message relative to the turn the history ended in.
      const turnOffsets: number[] = [];
      let turnsStarted = 0;
      for (const entry of prepared) {
        if (entry.startsTurn) turnsStarted++;
        turnOffsets.push(turnsStarted);
      }
      return withStorageErrors(`append to the history of ${key}`, async () => {
        const pool = await context.pool();
        const { rows } = await pool.query(
          `WITH head AS (
             INSERT INTO ${schema}.history_heads AS current (scope_key, next_index, turn)
             VALUES ($1, $2, $3)
             ON CONFLICT (scope_key) DO UPDATE
               SET next_index = current.next_index + $2, turn = current.turn + $3
             RETURNING next_index - $2 AS start_index, turn - $3 AS start_turn
           )
           INSERT INTO ${schema}.history_messages (scope_key, message_index, turn, created_at, message)
           SELECT $1, head.start_index + item.ordinality - 1, head.start_turn + item.turn_offset, $4, item.message
           FROM head, unnest($5::integer[], $6::text[]) WITH ORDINALITY AS item(turn_offset, message, ordinality)
           RETURNING message_index, turn`,
          [key, prepared.length, turnsStarted, createdAt, turnOffsets, prepared.map((p) => p.json)],
        );
        const first = (rows as Array<{ message_index: number; turn: number }>).reduce(
          (lowest, row) => (row.message_index < lowest.message_index ? row : lowest),
        );
        const startTurn = first.turn - turnOffsets[0]!;
        return numberPrepared(
          prepared,
          { nextIndex: first.message_index, turn: startTurn },
          createdAt,
        );
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

import type { OffloadRecord, OffloadStore } from '@ctxmem/core';
import {
  assertOffloadId,
  encodeMessage,
  isoNow,
  offloadId,
  offloadNotFound,
  parseMessage,
} from '@ctxmem/core/driver-kit';
import { withStorageErrors } from './connection.js';
import { resolveScope, type StoreContext } from './context.js';

/**
 * Offloaded payloads in PostgreSQL, one row per scope and content id. Ids come from the content,
 * so a second `put` of the same message is `ON CONFLICT DO NOTHING`: the first write (and its
 * `createdAt`) is kept, and concurrent writers of the same id cannot disagree.
 */
export function createPostgresOffloadStore(context: StoreContext): OffloadStore {
  const { schema } = context;
  return {
    async put(scope, message) {
      const { key } = resolveScope(context, scope);
      const encoded = encodeMessage(message, 'message');
      const id = offloadId(message);
      await withStorageErrors(`offload ${id} in ${key}`, async () => {
        const pool = await context.pool();
        await pool.query(
          `INSERT INTO ${schema}.offloads (scope_key, id, created_at, message) VALUES ($1, $2, $3, $4)
           ON CONFLICT (scope_key, id) DO NOTHING`,
          [key, id, isoNow(context.clock), JSON.stringify(encoded)],
        );
      });
      return id;
    },

    async get(scope, id): Promise<OffloadRecord> {
      const { key } = resolveScope(context, scope);
      assertOffloadId(id);
      const row = await withStorageErrors(`read offload ${id} in ${key}`, async () => {
        const pool = await context.pool();
        const { rows } = await pool.query(
          `SELECT created_at, message FROM ${schema}.offloads WHERE scope_key = $1 AND id = $2`,
          [key, id],
        );
        return rows[0] as { created_at: string; message: string } | undefined;
      });
      if (!row) throw offloadNotFound(id);
      return {
        id,
        createdAt: row.created_at,
        message: parseMessage(row.message, `offload ${id} of ${key}`),
      };
    },

    async delete(scope, id) {
      const { key } = resolveScope(context, scope);
      assertOffloadId(id);
      await withStorageErrors(`delete offload ${id} in ${key}`, async () => {
        const pool = await context.pool();
        await pool.query(`DELETE FROM ${schema}.offloads WHERE scope_key = $1 AND id = $2`, [
          key,
          id,
        ]);
      });
    },
  };
}

import { randomUUID } from 'node:crypto';
import { assertLease, type Lease, type LeaseStore } from '@ctxmem/core/driver-kit';
import { withStorageErrors } from './connection.js';
import { resolveScope, type StoreContext } from './context.js';

/**
 * Leases in the `leases` table: taking one is one upsert that succeeds when the row is absent or
 * expired, timed by the server's clock (so instances with skewed clocks agree); releasing deletes
 * the row only if this holder still has it. Not advisory locks: those belong to one connection of
 * a pool, while a lease must outlive the call that took it.
 */
export function createPostgresLeases(context: StoreContext): LeaseStore {
  const { schema } = context;
  return {
    async tryAcquire(scope, name, ttlMs) {
      const { key } = resolveScope(context, scope);
      assertLease(name, ttlMs);
      const holder = randomUUID();
      const acquired = await withStorageErrors(`take the lease ${name} of ${key}`, async () => {
        const pool = await context.pool();
        const { rows } = await pool.query(
          `INSERT INTO ${schema}.leases AS current (scope_key, name, holder, expires_at)
           VALUES ($1, $2, $3, clock_timestamp() + $4 * interval '1 millisecond')
           ON CONFLICT (scope_key, name) DO UPDATE
             SET holder = excluded.holder, expires_at = excluded.expires_at
             WHERE current.expires_at <= clock_timestamp()
           RETURNING holder`,
          [key, name, holder, ttlMs],
        );
        return rows.length === 1;
      });
      if (!acquired) return undefined;
      const lease: Lease = {
        holder,
        release: () =>
          withStorageErrors(`release the lease ${name} of ${key}`, async () => {
            const pool = await context.pool();
            await pool.query(
              `DELETE FROM ${schema}.leases WHERE scope_key = $1 AND name = $2 AND holder = $3`,
              [key, name, holder],
            );
          }),
      };
      return lease;
    },
  };
}

import { randomUUID } from 'node:crypto';
import { assertLease, type Lease, type LeaseStore } from '@ctxmem/core/driver-kit';
import { luaScript, runScript, withStorageErrors } from './connection.js';
import { resolveScope, type StoreContext } from './context.js';

/** KEYS: the lease. ARGV: holder. Deletes the lease only if this holder still has it. */
const RELEASE = luaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`);

/**
 * Leases as keys `<prefix>:{<scope key>}:lease:<name>`: taking one is `SET NX PX` (Redis expires
 * it by itself), releasing is a script that deletes it only if this holder still has it.
 */
export function createRedisLeases(context: StoreContext): LeaseStore {
  return {
    async tryAcquire(scope, name, ttlMs) {
      const { base, key } = resolveScope(context, scope);
      assertLease(name, ttlMs);
      const leaseKey = `${base}:lease:${name}`;
      const holder = randomUUID();
      const reply = await withStorageErrors(`take the lease ${name} of ${key}`, async () => {
        const client = await context.client();
        return client.sendCommand(['SET', leaseKey, holder, 'NX', 'PX', String(ttlMs)]);
      });
      if (reply !== 'OK') return undefined;
      const lease: Lease = {
        holder,
        release: () =>
          withStorageErrors(`release the lease ${name} of ${key}`, async () => {
            await runScript(await context.client(), RELEASE, [leaseKey], [holder]);
          }),
      };
      return lease;
    },
  };
}

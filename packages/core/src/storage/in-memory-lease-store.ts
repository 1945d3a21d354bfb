import { randomUUID } from 'node:crypto';
import type { Lease, LeaseStore, Scope } from '../contracts/index.js';
import { requireOptions } from '../validation/index.js';
import { assertLease } from './lease.js';
import { scopeKey } from './scope.js';

export interface InMemoryLeaseStoreOptions {
  /** Milliseconds since the epoch. @default Date.now */
  now?: () => number;
}

/**
 * Leases held in this process: for several context managers in one process (workers, tests).
 * Instances in separate processes share leases through `@ctxmem/postgres` or `@ctxmem/redis`.
 */
export function createInMemoryLeaseStore(options: InMemoryLeaseStoreOptions = {}): LeaseStore {
  const { now = Date.now } = requireOptions(options, 'createInMemoryLeaseStore');
  const held = new Map<string, { holder: string; expiresAt: number }>();
  return {
    async tryAcquire(scope: Scope, name: string, ttlMs: number): Promise<Lease | undefined> {
      assertLease(name, ttlMs);
      const key = `${scopeKey(scope)}\u0000${name}`;
      const current = held.get(key);
      if (current && current.expiresAt > now()) return undefined;
      const holder = randomUUID();
      held.set(key, { holder, expiresAt: now() + ttlMs });
      return {
        holder,
        async release() {
          if (held.get(key)?.holder === holder) held.delete(key);
        },
      };
    },
  };
}

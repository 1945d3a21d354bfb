import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { LeaseStore } from '../contracts/index.js';
import { InvalidArgumentError, InvalidIdError } from '../errors/index.js';

/**
 * Conformance tests for a `LeaseStore` (see `@ctxmem/core/driver-kit`). `createStores` returns
 * two stores over the same data, as two application instances have.
 */
export function testLeaseStore(
  name: string,
  createStores: () => Promise<readonly [LeaseStore, LeaseStore]>,
): void {
  const scope = { userId: 'lease-user', sessionId: 'lease-session' };
  describe(`${name} (LeaseStore conformance)`, () => {
    it('gives a lease to one holder until it is released', async () => {
      const [first, second] = await createStores();
      const lease = await first.tryAcquire(scope, 'compaction', 30_000);
      expect(lease).toBeDefined();
      expect(await second.tryAcquire(scope, 'compaction', 30_000)).toBeUndefined();
      expect(await first.tryAcquire(scope, 'compaction', 30_000)).toBeUndefined();
      await lease!.release();
      const next = await second.tryAcquire(scope, 'compaction', 30_000);
      expect(next).toBeDefined();
      expect(next!.holder).not.toBe(lease!.holder);
      await next!.release();
    });

    it('keeps other names and scopes apart', async () => {
      const [first, second] = await createStores();
      const lease = await first.tryAcquire(scope, 'compaction', 30_000);
      const other = await second.tryAcquire(scope, 'flush', 30_000);
      const otherScope = await second.tryAcquire(
        { ...scope, sessionId: 'another' },
        'compaction',
        30_000,
      );
      expect([lease, other, otherScope].every((held) => held !== undefined)).toBe(true);
      await Promise.all([lease!.release(), other!.release(), otherScope!.release()]);
    });

    it('lets another holder take an expired lease, which the first can no longer release', async () => {
      const [first, second] = await createStores();
      const stale = await first.tryAcquire(scope, 'expiring', 100);
      expect(stale).toBeDefined();
      await sleep(250);
      const taken = await second.tryAcquire(scope, 'expiring', 30_000);
      expect(taken).toBeDefined();
      await stale!.release();
      expect(await first.tryAcquire(scope, 'expiring', 30_000)).toBeUndefined();
      await taken!.release();
    });

    it('gives a lease to exactly one of many instances asking at once', async () => {
      const stores = await createStores();
      const attempts = await Promise.all(
        stores.flatMap((store) => [1, 2, 3, 4].map(() => store.tryAcquire(scope, 'race', 30_000))),
      );
      const held = attempts.filter((lease) => lease !== undefined);
      expect(held).toHaveLength(1);
      await held[0]!.release();
    });

    it('rejects an unsafe name and a duration out of range', async () => {
      const [store] = await createStores();
      for (const [leaseName, ttl] of [
        ['../x', 1_000],
        ['ok', 0],
        ['ok', 1.5],
        ['ok', 10 * 3_600_000],
      ] as const) {
        const error = await store.tryAcquire(scope, leaseName, ttl).catch((caught) => caught);
        // An unsafe name is an InvalidIdError, a bad duration an InvalidArgumentError.
        expect(
          InvalidIdError.isInstance(error) || InvalidArgumentError.isInstance(error),
          `${leaseName} ${ttl}: ${String(error)}`,
        ).toBe(true);
      }
    });
  });
}

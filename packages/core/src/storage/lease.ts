/**
 * The checks every `LeaseStore` (contracts/lease-store.ts) applies to a lease's name and duration,
 * so the in-memory, PostgreSQL and Redis stores reject the same input the same way.
 */
import { InvalidArgumentError } from '../errors/index.js';
import { assertSafeId } from './safe-id.js';

/** Longest lease accepted, in ms: a job that needs longer should renew, not block for hours. */
export const MAX_LEASE_MS = 3_600_000;

/** Validates a lease's name and duration. */
export function assertLease(name: string, ttlMs: number): void {
  assertSafeId(name, 'lease name');
  if (typeof ttlMs !== 'number' || !Number.isInteger(ttlMs) || ttlMs < 1 || ttlMs > MAX_LEASE_MS) {
    throw new InvalidArgumentError({
      message: `ttlMs must be a whole number of milliseconds from 1 to ${MAX_LEASE_MS}; got ${String(ttlMs)}.`,
      argument: 'ttlMs',
    });
  }
}

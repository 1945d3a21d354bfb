/**
 * Leases: a short, expiring claim on one job of one scope, shared by every instance of an app
 * through its store. What a context manager would take before compacting a session, so that two
 * instances compacting the same session at once do not both call the summarizer: the one that
 * gets the lease summarizes, the other finds it taken and adopts the stored summary later. (The
 * manager does not take it yet; the drivers offer it.) A lease expires by itself, so a holder
 * that crashed blocks the job for `ttlMs` at most.
 */
import type { Scope } from '../contracts/index.js';
import { InvalidArgumentError } from '../errors/index.js';
import { assertSafeId } from '../storage/index.js';

/** A lease this instance holds. */
export interface Lease {
  /** Random token naming this holder: only it can release the lease. */
  readonly holder: string;
  /** Gives the lease up before it expires; does nothing once another holder took it over. */
  release(): Promise<void>;
}

/** Leases per scope and job name, on a store every instance shares. */
export interface LeaseStore {
  /**
   * Takes the lease `name` of `scope` for `ttlMs`, unless another holder has it and it has not
   * expired: then resolves to undefined at once (it never waits).
   */
  tryAcquire(scope: Scope, name: string, ttlMs: number): Promise<Lease | undefined>;
}

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

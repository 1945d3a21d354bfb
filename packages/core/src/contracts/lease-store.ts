import type { Scope } from './scope.js';

/** A lease this instance holds. */
export interface Lease {
  /** Random token naming this holder: only it can release the lease. */
  readonly holder: string;
  /** Gives the lease up before it expires; does nothing once another holder took it over. */
  release(): Promise<void>;
}

/**
 * Leases per scope and job name, on a store every instance of an app shares: a short, expiring
 * claim on one job of one scope. The context manager takes the `compaction` lease before it calls
 * the summarizer, so that two instances compacting one session at once do not both call it. A
 * lease expires by itself, so a holder that crashed blocks the job for `ttlMs` at most.
 */
export interface LeaseStore {
  /**
   * Takes the lease `name` of `scope` for `ttlMs`, unless another holder has it and it has not
   * expired: then resolves to undefined at once (it never waits).
   */
  tryAcquire(scope: Scope, name: string, ttlMs: number): Promise<Lease | undefined>;
}

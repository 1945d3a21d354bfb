/**
 * One writer at a time per scope for the memory files: an edit reads a file, changes it and
 * writes it back, so two edits at once would otherwise lose one of them. Three locks, by what the
 * store allows:
 * - `leases` given (`stores.leases` of `@ctxmem/postgres` or `@ctxmem/redis`): the lease
 *   `memory-files` of the scope, shared by every instance and process. `tryAcquire` never waits,
 *   so a writer retries with jittered backoff until `lockTimeoutMs`.
 * - a store that keeps files (the file memory store): a cross-process file lock beside the
 *   scope's cards (`withFileLock`), which waits and takes over a lock left by a dead process.
 * - any other store: within this process only (callers in one process always queue in order).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { LeaseStore, MemoryStore, Scope } from '../contracts/index.js';
import { StorageError } from '../errors/index.js';
import { memorySidecarPath } from '../memory/memory-sidecar.js';
import { createKeyedQueue, type KeyedQueue, scopeKey, withFileLock } from '../storage/index.js';

/** The name of the lease, and of the lock file beside a file store's cards. */
export const MEMORY_FILES_LOCK = 'memory-files';

const FIRST_RETRY_MS = 10;
const LONGEST_RETRY_MS = 250;

export interface MemoryFilesLockOptions {
  leases: LeaseStore | undefined;
  leaseMs: number;
  lockTimeoutMs: number;
}

/** Checks, before a write, that the lock is still surely held; throws when it may not be. */
export type HeldCheck = () => void;

// Per store, so that two tools over one store in one process queue behind each other.
const queues = new WeakMap<MemoryStore, KeyedQueue>();

function queueOf(store: MemoryStore): KeyedQueue {
  let queue = queues.get(store);
  if (!queue) {
    queue = createKeyedQueue();
    queues.set(store, queue);
  }
  return queue;
}

async function withLease<Result>(
  leases: LeaseStore,
  scope: Scope,
  { leaseMs, lockTimeoutMs }: MemoryFilesLockOptions,
  work: (held: HeldCheck) => Promise<Result>,
): Promise<Result> {
  const deadline = Date.now() + lockTimeoutMs;
  let delay = FIRST_RETRY_MS;
  for (;;) {
    const lease = await leases.tryAcquire(scope, MEMORY_FILES_LOCK, leaseMs);
    if (lease) {
      const acquiredAt = Date.now();
      // Past half the lease, another writer may take it over before this one's write lands.
      const held: HeldCheck = () => {
        const elapsed = Date.now() - acquiredAt;
        if (elapsed > leaseMs / 2) {
          throw new StorageError({
            message:
              `Error: The memory files were not changed: reading them took ${elapsed} ms, more ` +
              `than half the ${leaseMs} ms lease, so another writer could have taken over. Try again.`,
            path: undefined,
          });
        }
      };
      try {
        return await work(held);
      } finally {
        await lease.release().catch(() => {
          // The lease then expires by itself after leaseMs.
        });
      }
    }
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      throw new StorageError({
        message:
          `Error: The memory files are being changed by another writer; gave up after ` +
          `${lockTimeoutMs} ms. Try again.`,
        path: undefined,
      });
    }
    // Jittered, so that waiting instances do not retry in lockstep.
    await sleep(Math.min(remaining, delay * (0.5 + Math.random())));
    delay = Math.min(delay * 1.5, LONGEST_RETRY_MS);
  }
}

/** Runs `work` as the only writer of the memory files of `scope` (see the module comment). */
export function withMemoryFilesLock<Result>(
  store: MemoryStore,
  scope: Scope,
  options: MemoryFilesLockOptions,
  work: (held: HeldCheck) => Promise<Result>,
): Promise<Result> {
  // Also checks the scope's ids before anything waits on them.
  const key = scopeKey(scope);
  return queueOf(store)(key, async () => {
    if (options.leases) return withLease(options.leases, scope, options, work);
    const lockPath = memorySidecarPath(store, scope, MEMORY_FILES_LOCK);
    if (lockPath) {
      return withFileLock(lockPath, () => work(() => {}), { timeoutMs: options.lockTimeoutMs });
    }
    return work(() => {});
  });
}

import * as fs from 'node:fs';
import { mkdir, rmdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
// Imported up front on purpose, not on the first lock: loading proper-lockfile registers
// signal-exit's SIGTERM/SIGINT/… listeners, and signal-exit re-raises a signal when its listener
// finds no other one left (signal-exit 3, `index.js`, `sigListeners`). Registered at import, it
// runs before an app's own `process.once('SIGTERM', …)`, which is then still there; registered at
// the first lock, it would run after it and kill the process mid-shutdown (`ctxmem mcp` exited by
// SIGTERM instead of with 0: the SIGTERM test in packages/cli/src/mcp/mcp-http.test.ts).
import properLockfile from 'proper-lockfile';
import { InvalidArgumentError, StorageError } from '../errors/index.js';
import { requireOptions } from '../validation/index.js';
import { hasErrorCode, toStorageError } from './storage-error.js';

export interface FileLockOptions {
  /**
   * A lock not refreshed for this long is treated as abandoned by a dead process and taken over.
   * The holder refreshes it every `staleMs / 2`, so a live holder only loses it when its event loop
   * is blocked for longer than this. A lock left by a SIGKILLed process therefore delays the next
   * writer by at most `staleMs`. Minimum 2000 (the lock library's floor).
   * @default 10000
   */
  staleMs?: number;
  /**
   * How long to wait for a lock held by another process before failing with `StorageError`.
   * Keep it above `staleMs`, or abandoned locks cannot be recovered in time.
   * @default 30000
   */
  timeoutMs?: number;
  /**
   * Called when a held lock was lost (the event loop stalled past `staleMs`, or someone removed
   * the lock folder). The operation is not interrupted: by then it may already have written.
   * @default emits a process warning with code `CTXMEM_LOCK_COMPROMISED`
   */
  onCompromised?: (error: Error) => void;
}

const MINIMUM_STALE_MS = 2000;
const FIRST_RETRY_MS = 5;
const LONGEST_RETRY_MS = 200;

function lockedError(lockPath: string): Error {
  return Object.assign(new Error(`Lock ${lockPath} is held`), { code: 'ELOCKED' });
}

/**
 * Removes an abandoned lock folder. proper-lockfile removes stale locks with a bare `rmdir`, so two
 * processes that both saw the same stale lock could both "take it over" (the second deleting the
 * first one's fresh lock). Here the takeover happens under a second, short-lived guard folder and
 * re-checks staleness under it, so exactly one process takes a stale lock over.
 */
async function takeOverStaleLock(lockPath: string, staleMs: number): Promise<void> {
  const guard = `${lockPath}.takeover`;
  try {
    await mkdir(guard);
  } catch (error) {
    if (!hasErrorCode(error, 'EEXIST')) throw error;
    // A process that died inside the takeover leaves the guard behind: clear it once it is stale.
    const guardInfo = await stat(guard).catch(() => undefined);
    if (guardInfo && guardInfo.mtimeMs < Date.now() - staleMs) {
      await rmdir(guard).catch(() => {});
    }
    throw lockedError(lockPath);
  }
  try {
    const info = await stat(lockPath).catch((error: unknown) => {
      if (hasErrorCode(error, 'ENOENT')) return undefined;
      throw error;
    });
    // Refreshed or re-acquired since proper-lockfile judged it stale: someone holds it now.
    if (info && info.mtimeMs >= Date.now() - staleMs) throw lockedError(lockPath);
    if (info) {
      await rmdir(lockPath).catch((error: unknown) => {
        if (!hasErrorCode(error, 'ENOENT')) throw error;
      });
    }
  } finally {
    await rmdir(guard).catch(() => {});
  }
}

type Callback = (error: NodeJS.ErrnoException | null) => void;

/**
 * The `fs` proper-lockfile uses for one lock: plain `fs`, except that removing someone else's
 * (stale) lock is guarded. Removing our own lock, once `releasing()` says so, needs no stale check.
 */
function guardedFileSystem(staleMs: number, releasing: () => boolean): object {
  return {
    mkdir: fs.mkdir,
    stat: fs.stat,
    utimes: fs.utimes,
    realpath: fs.realpath,
    rmdirSync: fs.rmdirSync,
    rmdir(path: string, callback: Callback) {
      if (releasing()) {
        fs.rmdir(path, callback);
        return;
      }
      takeOverStaleLock(path, staleMs).then(
        () => callback(null),
        (error: NodeJS.ErrnoException) => callback(error),
      );
    },
  };
}

/**
 * One queue per lock path in this process, so same-process callers wait in order instead of
 * polling. Module-level on purpose, the one shared state of this file: a lock path is a resource
 * of the whole process (two stores on the same file in one process must queue behind each other),
 * and an entry lives only while someone holds or awaits that lock.
 */
const queues = new Map<string, Promise<void>>();

/**
 * Lock folders this process holds, removed synchronously if it exits while holding them
 * (`process.exit()` inside an operation). proper-lockfile does this through signal-exit 3's patch
 * of `process.emit`, but write-file-atomic's signal-exit 4 puts back the `process.emit` it found
 * when it loaded once its last write is done, which can drop signal-exit 3's patch: the lock was
 * then left for the next writer to wait out (`staleMs`). A plain 'exit' listener is not affected.
 * Module-level for the reason `queues` is: a held lock folder belongs to the whole process.
 */
const held = new Set<string>();

function removeHeldLocks(): void {
  for (const lockPath of held) {
    try {
      fs.rmdirSync(lockPath);
    } catch {
      // Already gone, or not ours to remove any more: it is then taken over once stale.
    }
  }
}

function holding(lockPath: string): void {
  if (held.size === 0) process.on('exit', removeHeldLocks);
  held.add(lockPath);
}

function released(lockPath: string): void {
  if (held.delete(lockPath) && held.size === 0) process.off('exit', removeHeldLocks);
}

async function inProcessQueue<T>(key: string, operation: () => Promise<T>): Promise<T> {
  const previous = queues.get(key) ?? Promise.resolve();
  let done!: () => void;
  const current = new Promise<void>((resolveCurrent) => {
    done = resolveCurrent;
  });
  const tail = previous.then(() => current);
  queues.set(key, tail);
  await previous;
  try {
    return await operation();
  } finally {
    done();
    if (queues.get(key) === tail) queues.delete(key);
  }
}

async function acquire(
  target: string,
  lockPath: string,
  { staleMs, timeoutMs, onCompromised }: Required<FileLockOptions>,
): Promise<() => Promise<void>> {
  const deadline = Date.now() + timeoutMs;
  let delay = FIRST_RETRY_MS;
  let releasing = false;
  const fileSystem = guardedFileSystem(staleMs, () => releasing);
  try {
    await mkdir(dirname(lockPath), { recursive: true });
  } catch (error) {
    throw toStorageError(error, dirname(lockPath), 'create the folder');
  }
  for (;;) {
    try {
      const release = await properLockfile.lock(target, {
        stale: staleMs,
        realpath: false,
        lockfilePath: lockPath,
        retries: 0,
        fs: fileSystem,
        onCompromised: (error: Error) => {
          // Lost (taken over after a stall): removing its folder at exit could remove another's.
          released(lockPath);
          onCompromised(error);
        },
      });
      holding(lockPath);
      return async () => {
        releasing = true;
        released(lockPath);
        await release();
      };
    } catch (error) {
      if (!hasErrorCode(error, 'ELOCKED')) throw toStorageError(error, lockPath, 'lock');
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        throw new StorageError({
          message:
            `Timed out after ${timeoutMs} ms waiting for the lock ${lockPath}, which another ` +
            `process holds. A lock left by a dead process is taken over after ${staleMs} ms.`,
          path: lockPath,
          cause: error,
        });
      }
      // Jittered exponential backoff, so that waiting processes do not retry in lockstep.
      await sleep(Math.min(remaining, delay * (0.5 + Math.random())));
      delay = Math.min(delay * 1.5, LONGEST_RETRY_MS);
    }
  }
}

/**
 * Runs `operation` while holding an exclusive cross-process lock on `path` (a `<path>.lock`
 * folder; `path` itself need not exist). Use it around every read-modify-write of a shared file.
 * Waiting processes retry with jittered backoff; a lock whose holder died (even by SIGKILL) is
 * taken over once it is `staleMs` old. Callers in the same process queue in order. The lock is
 * not re-entrant: taking the same lock again inside `operation` waits forever. Never call a model
 * or anything slow while holding a lock.
 */
export async function withFileLock<T>(
  path: string,
  operation: () => Promise<T>,
  options: FileLockOptions = {},
): Promise<T> {
  const {
    staleMs = 10_000,
    timeoutMs = 30_000,
    onCompromised = (error: Error) => {
      process.emitWarning(`ctxmem lost the lock on ${path}: ${error.message}`, {
        code: 'CTXMEM_LOCK_COMPROMISED',
      });
    },
  } = requireOptions(options, 'withFileLock');
  if (!Number.isFinite(staleMs) || staleMs < MINIMUM_STALE_MS) {
    throw new InvalidArgumentError({
      message: `staleMs must be a number of at least ${MINIMUM_STALE_MS}; got ${staleMs}.`,
      argument: 'staleMs',
    });
  }
  if (!(timeoutMs >= 0)) {
    throw new InvalidArgumentError({
      message: `timeoutMs must be a non-negative number; got ${timeoutMs}.`,
      argument: 'timeoutMs',
    });
  }
  const target = resolve(path);
  const lockPath = `${target}.lock`;
  return inProcessQueue(lockPath, async () => {
    const release = await acquire(target, lockPath, { staleMs, timeoutMs, onCompromised });
    try {
      return await operation();
    } finally {
      try {
        await release();
      } catch {
        // Already released because it was compromised (reported through onCompromised), or the
        // folder cannot be removed: others then take it over once it is stale.
      }
    }
  });
}

import { randomUUID } from 'node:crypto';
import { mkdir, rename, rm, stat, utimes } from 'node:fs/promises';
import { dirname } from 'node:path';
import { InvalidArgumentError, StorageError } from '@ctxmem/core';

export interface FileLockOptions {
  /**
   * A lock whose folder was not refreshed for this long belongs to a process that died; it is
   * broken so that one crash cannot block every later flush. The holder refreshes the lock every
   * third of this time.
   * @default 10_000
   */
  staleMs?: number;
  /**
   * How long to wait for another holder before giving up with a `StorageError`.
   * @default 30_000
   */
  timeoutMs?: number;
  /**
   * Pause between two attempts to take a held lock.
   * @default 25
   */
  retryDelayMs?: number;
}

function hasCode(error: unknown, code: string): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === code;
}

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/**
 * Runs `action` while holding a cross-process lock on `path`: the folder `${path}.lock`, whose
 * creation is atomic on every file system (the scheme `proper-lockfile` uses). The lock is
 * released when `action` settles, and recovered when its holder died without releasing it.
 */
export async function withFileLock<T>(
  path: string,
  action: () => Promise<T>,
  { staleMs = 10_000, timeoutMs = 30_000, retryDelayMs = 25 }: FileLockOptions = {},
): Promise<T> {
  for (const [argument, value] of Object.entries({ staleMs, timeoutMs, retryDelayMs })) {
    if (!Number.isFinite(value) || value <= 0) {
      throw new InvalidArgumentError({
        message: `${argument} must be a positive number, got ${value}`,
        argument,
      });
    }
  }
  const lockPath = `${path}.lock`;
  const deadline = Date.now() + timeoutMs;
  await mkdir(dirname(path), { recursive: true }).catch((error: unknown) => {
    throw new StorageError({
      message: `Could not create the folder of ${path}`,
      path,
      cause: error,
    });
  });

  for (;;) {
    try {
      await mkdir(lockPath);
      break;
    } catch (error) {
      if (!hasCode(error, 'EEXIST')) {
        throw new StorageError({ message: `Could not lock ${path}`, path: lockPath, cause: error });
      }
    }
    const holder = await stat(lockPath).catch(() => undefined);
    if (holder && Date.now() - holder.mtimeMs > staleMs) {
      // Rename before removing: of two processes breaking the same stale lock, only one wins the
      // rename, so the other cannot delete a lock taken in the meantime.
      const brokenPath = `${lockPath}.stale-${randomUUID()}`;
      const broken = await rename(lockPath, brokenPath).then(
        () => true,
        () => false,
      );
      if (broken) await rm(brokenPath, { recursive: true, force: true });
      continue;
    }
    if (Date.now() >= deadline) {
      throw new StorageError({
        message: `Timed out after ${timeoutMs} ms waiting for the lock ${lockPath}`,
        path: lockPath,
      });
    }
    await sleep(retryDelayMs);
  }

  // Keep the lock fresh while the action runs, so a long flush is not mistaken for a dead holder.
  const refresh = setInterval(
    () => {
      const now = new Date();
      utimes(lockPath, now, now).catch(() => {});
    },
    Math.max(1, Math.floor(staleMs / 3)),
  );
  refresh.unref();
  try {
    return await action();
  } finally {
    clearInterval(refresh);
    await rm(lockPath, { recursive: true, force: true });
  }
}

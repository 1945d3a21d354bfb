import { mkdir, mkdtemp, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidArgumentError, StorageError } from '../errors/index.js';
import { withFileLock } from './index.js';

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'ctxmem-lock-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('Expected the promise to reject.');
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

describe('withFileLock', () => {
  it('runs critical sections one at a time and removes the lock afterwards', async () => {
    const path = join(folder, 'counter.json');
    let inside = 0;
    let overlaps = 0;
    let total = 0;
    await Promise.all(
      Array.from({ length: 15 }, () =>
        withFileLock(path, async () => {
          inside++;
          if (inside > 1) overlaps++;
          const seen = total;
          await sleep(1);
          total = seen + 1;
          inside--;
        }),
      ),
    );
    expect(overlaps).toBe(0);
    expect(total).toBe(15);
    expect(await exists(`${path}.lock`)).toBe(false);
  });

  it('returns the result, passes errors through unchanged and releases on failure', async () => {
    const path = join(folder, 'errors.json');
    expect(await withFileLock(path, async () => 42)).toBe(42);
    const failure = new Error('inside');
    expect(await rejection(withFileLock(path, async () => Promise.reject(failure)))).toBe(failure);
    expect(await withFileLock(path, async () => 'again')).toBe('again');
  });

  it('takes over an abandoned lock once it is stale', async () => {
    const path = join(folder, 'abandoned.json');
    await mkdir(`${path}.lock`);
    const old = new Date(Date.now() - 60_000);
    await utimes(`${path}.lock`, old, old);
    expect(await withFileLock(path, async () => 'taken', { staleMs: 2000, timeoutMs: 5000 })).toBe(
      'taken',
    );
    expect(await exists(`${path}.lock`)).toBe(false);
  });

  it('clears a takeover guard left by a process that died during a takeover', async () => {
    const path = join(folder, 'guarded.json');
    const old = new Date(Date.now() - 60_000);
    for (const leftover of [`${path}.lock`, `${path}.lock.takeover`]) {
      await mkdir(leftover);
      await utimes(leftover, old, old);
    }
    expect(await withFileLock(path, async () => 'ok', { staleMs: 2000, timeoutMs: 5000 })).toBe(
      'ok',
    );
  });

  it('times out with a StorageError while another holder keeps the lock fresh', async () => {
    const path = join(folder, 'held.json');
    await mkdir(`${path}.lock`);
    const error = await rejection(
      withFileLock(path, async () => 'never', { staleMs: 10_000, timeoutMs: 200 }),
    );
    expect(StorageError.isInstance(error)).toBe(true);
    expect((error as StorageError).path).toBe(`${path}.lock`);
    expect((error as StorageError).message).toContain('Timed out');
    // The fresh lock of the other holder is left alone.
    expect(await exists(`${path}.lock`)).toBe(true);
  });

  it('maps file-system failures to StorageError', async () => {
    const blocker = join(folder, 'not-a-folder');
    await writeFile(blocker, 'x');
    const error = await rejection(withFileLock(join(blocker, 'x.json'), async () => 1));
    expect(StorageError.isInstance(error)).toBe(true);
  });

  it('rejects invalid options with InvalidArgumentError', async () => {
    const path = join(folder, 'options.json');
    for (const options of [{ staleMs: 100 }, { staleMs: Number.NaN }, { timeoutMs: -1 }]) {
      expect(
        InvalidArgumentError.isInstance(
          await rejection(withFileLock(path, async () => 1, options)),
        ),
      ).toBe(true);
    }
  });
});

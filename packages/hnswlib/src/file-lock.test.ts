import { mkdir, mkdtemp, rm, stat, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidArgumentError, StorageError } from '@ctxmem/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withFileLock } from './file-lock.js';

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'ctxmem-lock-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

describe('withFileLock', () => {
  it('never lets two holders overlap and releases the lock afterwards', async () => {
    const path = join(folder, 'overlap', 'file');
    let holders = 0;
    let maximum = 0;
    await Promise.all(
      Array.from({ length: 6 }, () =>
        withFileLock(path, async () => {
          holders += 1;
          maximum = Math.max(maximum, holders);
          await sleep(5);
          holders -= 1;
        }),
      ),
    );
    expect(maximum).toBe(1);
    await expect(stat(`${path}.lock`)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('releases the lock when the action throws', async () => {
    const path = join(folder, 'throws');
    await expect(
      withFileLock(path, async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await withFileLock(path, async () => 'again')).toBe('again');
  });

  it('breaks a stale lock left by a dead holder', async () => {
    const path = join(folder, 'stale');
    await mkdir(`${path}.lock`);
    const old = new Date(Date.now() - 60_000);
    await utimes(`${path}.lock`, old, old);
    expect(await withFileLock(path, async () => 'taken', { staleMs: 1_000 })).toBe('taken');
  });

  it('times out with a StorageError while a live holder keeps the lock', async () => {
    const path = join(folder, 'busy');
    await mkdir(`${path}.lock`);
    const error = await withFileLock(path, async () => 'never', {
      timeoutMs: 100,
      staleMs: 60_000,
    }).catch((caught: unknown) => caught);
    expect(StorageError.isInstance(error)).toBe(true);
  });

  it('rejects non-positive timings', async () => {
    const error = await withFileLock(join(folder, 'x'), async () => 1, { timeoutMs: 0 }).catch(
      (caught: unknown) => caught,
    );
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
  });
});

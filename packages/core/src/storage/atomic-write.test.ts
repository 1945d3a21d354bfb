import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StorageError } from '../errors/index.js';
import {
  jsonChunks,
  removeLeftoverTempFiles,
  toStorageError,
  writeFileAtomic,
  writeFilesAtomic,
} from './index.js';

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'ctxmem-atomic-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('writeFileAtomic', () => {
  it('creates parent folders, writes, replaces, and leaves no temporary files', async () => {
    const path = join(folder, 'a', 'b', 'state.json');
    await writeFileAtomic(path, '{"v":1}');
    await writeFileAtomic(path, new TextEncoder().encode('{"v":2}'));
    expect(await readFile(path, 'utf8')).toBe('{"v":2}');
    expect(await readdir(join(folder, 'a', 'b'))).toEqual(['state.json']);
  });

  it('keeps the old content when many writes race, never a mix', async () => {
    const path = join(folder, 'race.json');
    const values = Array.from({ length: 20 }, (_, index) =>
      JSON.stringify({ index, pad: 'p'.repeat(10_000) }),
    );
    await Promise.all(values.map((value) => writeFileAtomic(path, value)));
    expect(values).toContain(await readFile(path, 'utf8'));
  });

  it('fails with a StorageError naming the path when a file is in the way of a folder', async () => {
    const blocker = join(folder, 'blocker');
    await writeFile(blocker, 'a file, not a folder');
    const path = join(blocker, 'inside.json');
    let error: unknown;
    try {
      await writeFileAtomic(path, 'x');
    } catch (caught) {
      error = caught;
    }
    expect(StorageError.isInstance(error)).toBe(true);
    expect((error as StorageError).path).toBe(path);
    expect((error as StorageError).message).toContain(path);
    expect((error as StorageError).message).toMatch(/ENOTDIR|EEXIST/);
  });
});

describe('writeFileAtomic with content in pieces', () => {
  it('writes the pieces in order, replaces, and leaves no temporary files', async () => {
    const path = join(folder, 'pieces', 'record.json');
    const value = { id: 'x', text: `${'abc😀'.repeat(50_000)}"end"` };
    await writeFileAtomic(path, 'old');
    await writeFileAtomic(path, jsonChunks(value, 1_000));
    expect(await readFile(path, 'utf8')).toBe(JSON.stringify(value));
    expect(await readdir(join(folder, 'pieces'))).toEqual(['record.json']);
  });

  it('keeps the old content and no temporary file when a piece fails', async () => {
    const path = join(folder, 'pieces', 'kept.json');
    await writeFileAtomic(path, 'old');
    function* failing() {
      yield 'new';
      throw new Error('the producer failed');
    }
    await expect(writeFileAtomic(path, failing())).rejects.toThrow(/the producer failed/);
    expect(await readFile(path, 'utf8')).toBe('old');
    expect((await readdir(join(folder, 'pieces'))).sort()).toEqual(['kept.json', 'record.json']);
  });

  it('writes many files into one folder, strings and pieces alike', async () => {
    const dir = join(folder, 'many');
    await mkdir(dir);
    const files = Array.from({ length: 30 }, (_, index) => ({
      path: join(dir, `f${index}.json`),
      data: index % 2 === 0 ? `{"i":${index}}` : jsonChunks({ i: index }, 2),
    }));
    await writeFilesAtomic(dir, files);
    for (let index = 0; index < 30; index++) {
      expect(await readFile(join(dir, `f${index}.json`), 'utf8')).toBe(`{"i":${index}}`);
    }
    expect(await readdir(dir)).toHaveLength(30);
  });

  it('fails with a StorageError naming the file when the folder is gone', async () => {
    const dir = join(folder, 'missing-folder');
    await expect(
      writeFilesAtomic(dir, [{ path: join(dir, 'a.json'), data: '{}' }]),
    ).rejects.toSatisfy(
      (error: unknown) =>
        StorageError.isInstance(error) && (error as StorageError).path === join(dir, 'a.json'),
    );
  });
});

describe('removeLeftoverTempFiles', () => {
  it('removes only the temporary files of the given file', async () => {
    const dir = join(folder, 'leftovers');
    await mkdir(dir);
    const names = [
      'cards.json',
      'cards.json.1234567',
      'cards.json.42',
      'cards.json.lock',
      'cards.json.corrupt-20260101T000000.000Z',
      'cards.jsonx.99',
      'state.json.77',
    ];
    for (const name of names) await writeFile(join(dir, name), 'x');
    await mkdir(join(dir, 'cards.json.lock2'));
    expect(await removeLeftoverTempFiles(join(dir, 'cards.json'))).toBe(2);
    expect((await readdir(dir)).sort()).toEqual(
      [
        'cards.json',
        'cards.json.corrupt-20260101T000000.000Z',
        'cards.json.lock',
        'cards.json.lock2',
        'cards.jsonx.99',
        'state.json.77',
      ].sort(),
    );
    expect(await removeLeftoverTempFiles(join(folder, 'missing', 'x.json'))).toBe(0);
  });
});

describe('toStorageError', () => {
  it('explains common errno codes and keeps the cause', () => {
    for (const [code, text] of [
      ['ENOSPC', 'disk is full'],
      ['EACCES', 'permission denied'],
      ['EROFS', 'read-only'],
      ['EMFILE', 'too many open files'],
    ] as const) {
      const cause = Object.assign(new Error(`${code}: boom`), { code });
      const error = toStorageError(cause, '/data/cards.json', 'write');
      expect(StorageError.isInstance(error)).toBe(true);
      expect(error.message.startsWith('Could not write /data/cards.json: ')).toBe(true);
      expect(error.message).toContain(text);
      expect(error.message).toContain(code);
      expect(error.cause).toBe(cause);
    }
  });

  it('passes ctxmem errors through and wraps anything else', () => {
    const original = new StorageError({ message: 'already typed', path: undefined });
    expect(toStorageError(original, '/x', 'read')).toBe(original);
    const wrapped = toStorageError('weird', '/x', 'read');
    expect(StorageError.isInstance(wrapped)).toBe(true);
    expect(wrapped.message).toContain('weird');
  });
});

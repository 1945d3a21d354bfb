import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidArgumentError, type MemoryIndex, StorageError } from '@ctxmem/core';
import { withFileLock } from '@ctxmem/core/driver-kit';
import { testMemoryIndex } from '@ctxmem/core/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHnswMemoryIndex, type HnswLoadProblem, HnswMemoryIndex } from './index.js';

let folder: string;
let counter = 0;
const nextPath = () => join(folder, `index-${++counter}`, 'cards.hnsw');

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'ctxmem-hnsw-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

testMemoryIndex('hnsw in memory', ({ dimensions }) => createHnswMemoryIndex({ dimensions }));

// Small scopes are searched exactly by default; this run forces the graph path everywhere, and a
// tiny capacity forces the geometric growth.
testMemoryIndex('hnsw in memory, graph search only', ({ dimensions }) =>
  createHnswMemoryIndex({ dimensions, exactSearchMaxItems: 0, initialCapacity: 4 }),
);

const paths = new WeakMap<MemoryIndex, { path: string; dimensions: number }>();
testMemoryIndex(
  'hnsw file-backed',
  async ({ dimensions }) => {
    const path = nextPath();
    const index = await createHnswMemoryIndex({ dimensions, path, initialCapacity: 16 });
    paths.set(index, { path, dimensions });
    return index;
  },
  {
    reopen: async (index) => {
      const { path, dimensions } = paths.get(index)!;
      await index.flush?.();
      await index.close?.();
      const reopened = await createHnswMemoryIndex({ dimensions, path, exactSearchMaxItems: 0 });
      expect(reopened.needsRebuild).toBe(false);
      return reopened;
    },
  },
);

const dimensions = 8;

function unit(position: number, weight = 1): Float32Array {
  const vector = new Float32Array(dimensions);
  vector[position % dimensions] = weight;
  return vector;
}

function items(count: number, scopeKey = 'scope', prefix = 'item') {
  return Array.from({ length: count }, (_, position) => ({
    id: `${prefix}-${position}`,
    vector: Float32Array.from({ length: dimensions }, (_, axis) =>
      Math.sin(position * 7 + axis * 3),
    ),
    scopeKey,
  }));
}

async function rejection(action: () => Promise<unknown>): Promise<unknown> {
  try {
    await action();
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

async function savedIndex(path: string, count = 20): Promise<HnswMemoryIndex> {
  const index = await createHnswMemoryIndex({ dimensions, path });
  await index.upsert(items(count));
  await index.flush();
  return index;
}

async function reopenWithProblem(
  path: string,
  size = dimensions,
): Promise<{ index: HnswMemoryIndex; reported: HnswLoadProblem[] }> {
  const reported: HnswLoadProblem[] = [];
  const index = await createHnswMemoryIndex({
    dimensions: size,
    path,
    onLoadProblem: (problem) => reported.push(problem),
  });
  return { index, reported };
}

describe('HnswMemoryIndex options', () => {
  it('rejects invalid options with InvalidArgumentError', async () => {
    const invalid = [
      { dimensions: 0 },
      { dimensions: 1.5 },
      { dimensions, M: 1 },
      { dimensions, efSearch: 0 },
      { dimensions, initialCapacity: -1 },
      { dimensions, exactSearchMaxItems: -1 },
      { dimensions, space: 'l2' as 'cosine' },
      { dimensions, path: '' },
    ];
    for (const options of invalid) {
      const error = await rejection(() => createHnswMemoryIndex(options));
      expect(InvalidArgumentError.isInstance(error), JSON.stringify(options)).toBe(true);
    }
  });
});

describe('HnswMemoryIndex capacity and deletes', () => {
  it('grows geometrically instead of failing when full', async () => {
    const index = await createHnswMemoryIndex({ dimensions, initialCapacity: 2 });
    await index.upsert(items(3));
    expect(index.stats().capacity).toBe(4);
    await index.upsert(items(40, 'scope', 'more'));
    expect(index.size()).toBe(43);
    expect(index.stats().capacity).toBeGreaterThanOrEqual(43);
    expect(await index.query(unit(0), { k: 100, scopeKey: 'scope' })).toHaveLength(43);
  });

  it('reuses the slots of removed items', async () => {
    const index = await createHnswMemoryIndex({ dimensions, initialCapacity: 10 });
    await index.upsert(items(10));
    await index.remove(['item-0', 'item-1', 'item-2']);
    expect(index.stats()).toMatchObject({ liveItems: 7, deletedSlots: 3, capacity: 10 });
    await index.upsert(items(3, 'scope', 'new'));
    expect(index.stats()).toMatchObject({ liveItems: 10, deletedSlots: 0, capacity: 10 });
    // A removed id comes back under a fresh label.
    await index.upsert([{ id: 'item-0', vector: unit(3), scopeKey: 'scope' }]);
    const hits = await index.query(unit(3), { k: 1, scopeKey: 'scope' });
    expect(hits[0]).toMatchObject({ id: 'item-0' });
    expect(index.size()).toBe(11);
  });
});

describe('HnswMemoryIndex small-scope exact search', () => {
  it('keeps its vector copies in step with updates and drops them when the scope grows', async () => {
    const index = await createHnswMemoryIndex({ dimensions, exactSearchMaxItems: 10 });
    await index.upsert(items(5));
    expect(index.stats().cachedVectors).toBe(5);

    await index.upsert([{ id: 'item-4', vector: unit(6), scopeKey: 'scope' }]);
    const updated = await index.query(unit(6), { k: 1, scopeKey: 'scope' });
    expect(updated[0]).toMatchObject({ id: 'item-4' });
    expect(updated[0]!.score).toBeCloseTo(1, 5);

    await index.upsert([{ id: 'item-4', vector: unit(6), scopeKey: 'elsewhere' }]);
    expect(
      (await index.query(unit(6), { k: 5, scopeKey: 'scope' })).map((hit) => hit.id),
    ).not.toContain('item-4');
    expect(index.stats().cachedVectors).toBe(5);

    // 34 items in `scope`: past twice the limit, its copies go; `elsewhere` keeps its one.
    await index.upsert(items(30, 'scope', 'bulk'));
    expect(index.stats().cachedVectors).toBe(1);
    const hits = await index.query(unit(6), { k: 5, scopeKey: 'scope' });
    expect(hits).toHaveLength(5);
    const moved = await index.query(unit(6), { k: 5, scopeKey: 'elsewhere' });
    expect(moved.map((hit) => hit.id)).toEqual(['item-4']);
    expect(moved[0]!.score).toBeCloseTo(1, 5);
  });

  it('reads the vectors of a small scope back from a loaded index', async () => {
    const path = nextPath();
    const index = await createHnswMemoryIndex({ dimensions, path });
    await index.upsert([...items(5), { id: 'target', vector: unit(2), scopeKey: 'scope' }]);
    await index.close();
    const reopened = await createHnswMemoryIndex({ dimensions, path });
    expect(reopened.stats().cachedVectors).toBe(0);
    const hits = await reopened.query(unit(2), { k: 2, scopeKey: 'scope' });
    expect(hits[0]).toMatchObject({ id: 'target' });
    expect(hits[0]!.score).toBeCloseTo(1, 5);
    expect(reopened.stats().cachedVectors).toBe(6);
  });
});

describe('HnswMemoryIndex persistence', () => {
  it('writes a header with version, dimensions, count, label map and checksum', async () => {
    const path = nextPath();
    const index = await savedIndex(path, 12);
    await index.upsert(items(2, 'other', 'o'));
    await index.remove(['item-0']);
    await index.flush();
    const header = JSON.parse(await readFile(`${path}.json`, 'utf8'));
    const bytes = await readFile(path);
    expect(header).toMatchObject({
      format: 'ctxmem-hnsw-index',
      version: 1,
      space: 'cosine',
      dimensions,
      count: 13,
      index: { bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') },
    });
    expect(header.items).toHaveLength(13);
    expect(new Set(header.scopes)).toEqual(new Set(['scope', 'other']));
    await index.close();
  });

  it('reports a missing index as needing a rebuild, without calling onLoadProblem', async () => {
    const { index, reported } = await reopenWithProblem(nextPath());
    expect(index.needsRebuild).toBe(true);
    expect(index.loadProblem?.reason).toBe('missing');
    expect(reported).toEqual([]);
  });

  it('in memory, starts as needing a rebuild and is cleared by rebuild()', async () => {
    const index = await createHnswMemoryIndex({ dimensions });
    expect(index.needsRebuild).toBe(true);
    await index.upsert(items(3));
    await index.rebuild(items(5, 'fresh', 'f'));
    expect(index.needsRebuild).toBe(false);
    expect(index.size()).toBe(5);
    expect(await index.query(unit(0), { k: 10, scopeKey: 'scope' })).toEqual([]);
  });

  it('loads a saved index without asking for a rebuild', async () => {
    const path = nextPath();
    await (await savedIndex(path)).close();
    const { index, reported } = await reopenWithProblem(path);
    expect(index.needsRebuild).toBe(false);
    expect(index.loadProblem).toBeUndefined();
    expect(reported).toEqual([]);
    expect(index.size()).toBe(20);
  });

  const damages: Array<[string, (path: string) => Promise<void>, HnswLoadProblem['reason']]> = [
    ['a truncated index file', (path) => truncate(path, 100), 'checksum-mismatch'],
    [
      'a flipped byte in the index file',
      async (path) => {
        const bytes = await readFile(path);
        bytes[bytes.length - 5]! ^= 0xff;
        await writeFile(path, bytes);
      },
      'checksum-mismatch',
    ],
    ['a deleted index file', (path) => rm(path), 'corrupt'],
    ['a deleted header', (path) => rm(`${path}.json`), 'corrupt'],
    ['a header that is not JSON', (path) => writeFile(`${path}.json`, '{"format":'), 'corrupt'],
    [
      'a header with a duplicate label',
      async (path) => {
        const header = JSON.parse(await readFile(`${path}.json`, 'utf8'));
        header.items[1][1] = header.items[0][1];
        await writeFile(`${path}.json`, JSON.stringify(header));
      },
      'corrupt',
    ],
    [
      'a header from another format version',
      async (path) => {
        const header = JSON.parse(await readFile(`${path}.json`, 'utf8'));
        header.version = 99;
        await writeFile(`${path}.json`, JSON.stringify(header));
      },
      'version-mismatch',
    ],
    [
      'a truncated index whose header matches it (a save that hit a full disk)',
      async (path) => {
        await truncate(path, 2000);
        const bytes = await readFile(path);
        const header = JSON.parse(await readFile(`${path}.json`, 'utf8'));
        header.index = {
          bytes: bytes.length,
          sha256: createHash('sha256').update(bytes).digest('hex'),
        };
        await writeFile(`${path}.json`, JSON.stringify(header));
      },
      'corrupt',
    ],
  ];

  for (const [damage, apply, reason] of damages) {
    it(`detects ${damage}, starts empty and can be rebuilt`, async () => {
      const path = nextPath();
      await (await savedIndex(path)).close();
      await apply(path);
      const { index, reported } = await reopenWithProblem(path);
      expect(index.needsRebuild).toBe(true);
      expect(index.loadProblem).toMatchObject({ reason, path });
      expect(reported.map((problem) => problem.reason)).toEqual([reason]);
      expect(index.size()).toBe(0);

      await index.rebuild(items(20));
      expect(index.needsRebuild).toBe(false);
      await index.close();
      const repaired = await createHnswMemoryIndex({ dimensions, path });
      expect(repaired.loadProblem).toBeUndefined();
      expect(repaired.size()).toBe(20);
    });
  }

  it('detects an index saved for other dimensions', async () => {
    const path = nextPath();
    await (await savedIndex(path)).close();
    const { index, reported } = await reopenWithProblem(path, dimensions * 2);
    expect(index.loadProblem?.reason).toBe('dimension-mismatch');
    expect(reported).toHaveLength(1);
    expect(index.dimensions).toBe(dimensions * 2);
  });

  it('detects a header and index from two different saves', async () => {
    const path = nextPath();
    const index = await savedIndex(path);
    const oldHeader = await readFile(`${path}.json`);
    await index.upsert(items(5, 'other', 'o'));
    await index.flush();
    await writeFile(`${path}.json`, oldHeader);
    const { index: reopened } = await reopenWithProblem(path);
    expect(reopened.loadProblem?.reason).toBe('checksum-mismatch');
  });

  it('skips a flush when nothing changed', async () => {
    const path = nextPath();
    const index = await savedIndex(path);
    const before = (await stat(`${path}.json`)).mtimeMs;
    await new Promise((resolve) => setTimeout(resolve, 20));
    await index.flush();
    expect((await stat(`${path}.json`)).mtimeMs).toBe(before);
  });

  it('keeps a write made during a flush for the next flush', async () => {
    const path = nextPath();
    const index = await savedIndex(path);
    const flushing = index.flush();
    await index.upsert([{ id: 'late', vector: unit(2), scopeKey: 'scope' }]);
    const second = index.upsert(items(3, 'other', 'o'));
    await Promise.all([flushing, second]);
    await index.close();
    const reopened = await createHnswMemoryIndex({ dimensions, path });
    expect(reopened.size()).toBe(24);
    expect((await reopened.query(unit(2), { k: 1, scopeKey: 'scope' }))[0]).toMatchObject({
      id: 'late',
    });
  });

  it('waits for the cross-process lock before it saves', async () => {
    const path = nextPath();
    const index = await createHnswMemoryIndex({ dimensions, path });
    await index.upsert(items(3));
    let flushed = false;
    let headerWhileLocked: unknown;
    await withFileLock(path, async () => {
      const flushing = index.flush().then(() => {
        flushed = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 150));
      headerWhileLocked = await stat(`${path}.json`).catch((error: unknown) => error);
      expect(flushed).toBe(false);
      // Released when this callback returns; the flush then proceeds.
      void flushing;
    });
    expect(headerWhileLocked).toMatchObject({ code: 'ENOENT' });
    await index.close();
    expect(flushed).toBe(true);
    expect((await createHnswMemoryIndex({ dimensions, path })).size()).toBe(3);
  });

  it('saves on close and refuses work afterwards', async () => {
    const path = nextPath();
    const index = await createHnswMemoryIndex({ dimensions, path });
    await index.upsert(items(4));
    await index.close();
    await index.close();
    expect(StorageError.isInstance(await rejection(() => index.upsert(items(1))))).toBe(true);
    expect(
      StorageError.isInstance(await rejection(() => index.query(unit(0), { k: 1, scopeKey: 's' }))),
    ).toBe(true);
    const reopened = await createHnswMemoryIndex({ dimensions, path });
    expect(reopened.size()).toBe(4);
  });

  it('reports a path it cannot write as a StorageError', async () => {
    const blocker = join(folder, `blocker-${++counter}`);
    await writeFile(blocker, 'a file where a folder should be');
    const error = await rejection(() =>
      createHnswMemoryIndex({ dimensions, path: join(blocker, 'cards.hnsw') }),
    );
    expect(StorageError.isInstance(error)).toBe(true);
  });

  it('is exported as a class with a static open', async () => {
    const index = await HnswMemoryIndex.open({ dimensions });
    expect(index).toBeInstanceOf(HnswMemoryIndex);
  });
});

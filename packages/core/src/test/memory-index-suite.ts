import { afterEach, describe, expect, it } from 'vitest';
import type { MemoryIndex, MemoryIndexItem } from '../contracts/index.js';
import { InvalidArgumentError } from '../errors/index.js';
import {
  axis,
  clusteredVectors,
  createRandom,
  exactTopK,
  normalise,
  randomVector,
} from './memory-index-vectors.js';

export interface MemoryIndexSuiteOptions {
  /**
   * Reopens an index from what it persisted (flush, close, open again at the same location). When
   * given, the suite also checks that upserts and removes survive a reopen.
   * @default undefined (persistence is not tested)
   */
  reopen?: (index: MemoryIndex) => Promise<MemoryIndex>;
  /**
   * Mean recall@10 against exact search that the "many items" test requires. Small cases (a few
   * hundred items) must always be exact.
   * @default 0.95
   */
  minimumRecall?: number;
}

export type CreateMemoryIndex = (options: {
  dimensions: number;
}) => MemoryIndex | Promise<MemoryIndex>;

/** A small seeded generator, so a failing case can be replayed exactly. */
async function rejectsWithInvalidArgument(action: () => Promise<unknown>): Promise<void> {
  let caught: unknown;
  try {
    await action();
  } catch (error) {
    caught = error;
  }
  expect(
    InvalidArgumentError.isInstance(caught),
    `expected InvalidArgumentError, got ${String(caught)}`,
  ).toBe(true);
}

/**
 * The behaviour every `MemoryIndex` must share, as a vitest `describe` block. Run it once per
 * implementation (and per configuration: in-memory, file-backed):
 *
 * @example
 * testMemoryIndex('brute force', ({ dimensions }) => createBruteForceIndex({ dimensions }));
 */
export function testMemoryIndex(
  name: string,
  createIndex: CreateMemoryIndex,
  { reopen, minimumRecall = 0.95 }: MemoryIndexSuiteOptions = {},
): void {
  describe(`MemoryIndex conformance: ${name}`, () => {
    const opened: MemoryIndex[] = [];
    const dimensions = 16;
    const scope = 'scope-a';
    const otherScope = 'scope-b';

    async function open(size = dimensions): Promise<MemoryIndex> {
      const index = await createIndex({ dimensions: size });
      opened.push(index);
      return index;
    }

    afterEach(async () => {
      for (const index of opened.splice(0)) await index.close?.();
    });

    it('reports its dimensions and starts empty', async () => {
      const index = await open();
      expect(index.dimensions).toBe(dimensions);
      expect(index.size()).toBe(0);
      expect(await index.query(axis(dimensions, 0), { k: 5, scopeKey: scope })).toEqual([]);
    });

    it('returns the nearest items first, with cosine scores', async () => {
      const index = await open();
      await index.upsert([
        { id: 'far', vector: axis(dimensions, 1), scopeKey: scope },
        {
          id: 'near',
          vector: normalise([1, 0.2, ...new Array(dimensions - 2).fill(0)]),
          scopeKey: scope,
        },
        { id: 'exact', vector: axis(dimensions, 0), scopeKey: scope },
        { id: 'opposite', vector: axis(dimensions, 0, -1), scopeKey: scope },
      ]);
      const hits = await index.query(axis(dimensions, 0), { k: 4, scopeKey: scope });
      expect(hits.map((hit) => hit.id)).toEqual(['exact', 'near', 'far', 'opposite']);
      expect(hits[0]!.score).toBeCloseTo(1, 5);
      expect(hits[1]!.score).toBeCloseTo(1 / Math.sqrt(1.04), 5);
      expect(hits[2]!.score).toBeCloseTo(0, 5);
      expect(hits[3]!.score).toBeCloseTo(-1, 5);
    });

    it('scores unnormalised vectors by cosine, not by length', async () => {
      const index = await open();
      await index.upsert([
        { id: 'long', vector: axis(dimensions, 1, 50), scopeKey: scope },
        { id: 'short', vector: axis(dimensions, 0, 0.01), scopeKey: scope },
      ]);
      const hits = await index.query(axis(dimensions, 0, 7), { k: 2, scopeKey: scope });
      expect(hits.map((hit) => hit.id)).toEqual(['short', 'long']);
      expect(hits[0]!.score).toBeCloseTo(1, 5);
    });

    it('replaces an item on upsert with the same id', async () => {
      const index = await open();
      await index.upsert([
        { id: 'a', vector: axis(dimensions, 0), scopeKey: scope },
        { id: 'b', vector: axis(dimensions, 1), scopeKey: scope },
      ]);
      await index.upsert([{ id: 'a', vector: axis(dimensions, 2), scopeKey: scope }]);
      expect(index.size()).toBe(2);
      const hits = await index.query(axis(dimensions, 2), { k: 2, scopeKey: scope });
      expect(hits[0]).toMatchObject({ id: 'a' });
      expect(hits[0]!.score).toBeCloseTo(1, 5);
      const old = await index.query(axis(dimensions, 0), { k: 1, scopeKey: scope });
      expect(old[0]!.score).toBeLessThan(0.5);
    });

    it('keeps the last of duplicate ids in one batch', async () => {
      const index = await open();
      await index.upsert([
        { id: 'a', vector: axis(dimensions, 0), scopeKey: scope },
        { id: 'a', vector: axis(dimensions, 3), scopeKey: scope },
      ]);
      expect(index.size()).toBe(1);
      const hits = await index.query(axis(dimensions, 3), { k: 5, scopeKey: scope });
      expect(hits).toHaveLength(1);
      expect(hits[0]!.score).toBeCloseTo(1, 5);
    });

    it('moves an item to another scope when it is upserted with a new scope key', async () => {
      const index = await open();
      await index.upsert([{ id: 'a', vector: axis(dimensions, 0), scopeKey: scope }]);
      await index.upsert([{ id: 'a', vector: axis(dimensions, 0), scopeKey: otherScope }]);
      expect(index.size()).toBe(1);
      expect(await index.query(axis(dimensions, 0), { k: 5, scopeKey: scope })).toEqual([]);
      expect(
        (await index.query(axis(dimensions, 0), { k: 5, scopeKey: otherScope })).map(
          (hit) => hit.id,
        ),
      ).toEqual(['a']);
    });

    it('keeps its own copy of the vectors', async () => {
      const index = await open();
      const vector = axis(dimensions, 0);
      await index.upsert([{ id: 'a', vector, scopeKey: scope }]);
      vector.fill(0);
      vector[1] = 1;
      const hits = await index.query(axis(dimensions, 0), { k: 1, scopeKey: scope });
      expect(hits[0]!.score).toBeCloseTo(1, 5);
    });

    it('removes items, ignores unknown ids, and takes a removed id back', async () => {
      const index = await open();
      await index.upsert(
        Array.from({ length: 5 }, (_, position) => ({
          id: `item-${position}`,
          vector: axis(dimensions, position),
          scopeKey: scope,
        })),
      );
      await index.remove(['item-0', 'item-3', 'never-added']);
      expect(index.size()).toBe(3);
      const hits = await index.query(axis(dimensions, 0), { k: 10, scopeKey: scope });
      expect(hits.map((hit) => hit.id).sort()).toEqual(['item-1', 'item-2', 'item-4']);

      await index.remove(['item-0']);
      expect(index.size()).toBe(3);

      await index.upsert([{ id: 'item-0', vector: axis(dimensions, 7), scopeKey: scope }]);
      expect(index.size()).toBe(4);
      const back = await index.query(axis(dimensions, 7), { k: 1, scopeKey: scope });
      expect(back[0]).toMatchObject({ id: 'item-0' });
      expect(back[0]!.score).toBeCloseTo(1, 5);
    });

    it('clamps k to the live items of the scope', async () => {
      const index = await open();
      await index.upsert(
        Array.from({ length: 6 }, (_, position) => ({
          id: `item-${position}`,
          vector: axis(dimensions, position),
          scopeKey: position < 4 ? scope : otherScope,
        })),
      );
      await index.remove(['item-1']);
      expect(await index.query(axis(dimensions, 0), { k: 100, scopeKey: scope })).toHaveLength(3);
      expect(await index.query(axis(dimensions, 0), { k: 0, scopeKey: scope })).toEqual([]);
      expect(await index.query(axis(dimensions, 0), { k: 2.7, scopeKey: scope })).toHaveLength(2);
      expect(await index.query(axis(dimensions, 0), { k: 100, scopeKey: 'unknown' })).toEqual([]);
    });

    it('never returns items of another scope, even when they are nearest', async () => {
      const index = await open();
      const random = createRandom(7);
      const target = randomVector(random, dimensions);
      // Scope B holds exact copies of the query; scope A only unrelated vectors.
      await index.upsert([
        ...Array.from({ length: 50 }, (_, position) => ({
          id: `b-${position}`,
          vector: target,
          scopeKey: otherScope,
        })),
        ...Array.from({ length: 5 }, (_, position) => ({
          id: `a-${position}`,
          vector: randomVector(random, dimensions),
          scopeKey: scope,
        })),
      ]);
      const hits = await index.query(target, { k: 10, scopeKey: scope });
      expect(hits).toHaveLength(5);
      for (const hit of hits) expect(hit.id.startsWith('a-')).toBe(true);
      const other = await index.query(target, { k: 60, scopeKey: otherScope });
      expect(other).toHaveLength(50);
      for (const hit of other) expect(hit.id.startsWith('b-')).toBe(true);
    });

    it('rejects vectors of other dimensions and leaves the index unchanged', async () => {
      const index = await open();
      await index.upsert([{ id: 'a', vector: axis(dimensions, 0), scopeKey: scope }]);
      await rejectsWithInvalidArgument(() =>
        index.upsert([
          { id: 'b', vector: axis(dimensions, 1), scopeKey: scope },
          { id: 'c', vector: new Float32Array(dimensions + 1), scopeKey: scope },
        ]),
      );
      expect(index.size()).toBe(1);
      await rejectsWithInvalidArgument(() =>
        index.query(new Float32Array(dimensions - 1), { k: 1, scopeKey: scope }),
      );
    });

    it('rejects non-finite values and a negative or NaN k', async () => {
      const index = await open();
      const broken = axis(dimensions, 0);
      broken[2] = Number.NaN;
      await rejectsWithInvalidArgument(() =>
        index.upsert([{ id: 'a', vector: broken, scopeKey: scope }]),
      );
      await rejectsWithInvalidArgument(() => index.query(broken, { k: 1, scopeKey: scope }));
      await rejectsWithInvalidArgument(() =>
        index.query(axis(dimensions, 0), { k: -1, scopeKey: scope }),
      );
      await rejectsWithInvalidArgument(() =>
        index.query(axis(dimensions, 0), { k: Number.NaN, scopeKey: scope }),
      );
      expect(index.size()).toBe(0);
    });

    it('rejects malformed items, ids and scope keys', async () => {
      const index = await open();
      const vector = axis(dimensions, 0);
      await rejectsWithInvalidArgument(() => index.upsert([{ id: '', vector, scopeKey: scope }]));
      await rejectsWithInvalidArgument(() =>
        index.upsert([{ id: 'a', vector, scopeKey: undefined as unknown as string }]),
      );
      await rejectsWithInvalidArgument(() =>
        index.upsert([{ id: 'a', vector: [1, 0] as unknown as Float32Array, scopeKey: scope }]),
      );
      await rejectsWithInvalidArgument(() => index.upsert('a' as unknown as MemoryIndexItem[]));
      await rejectsWithInvalidArgument(() => index.remove([42 as unknown as string]));
      await rejectsWithInvalidArgument(() =>
        index.query(vector, { k: 1, scopeKey: undefined as unknown as string }),
      );
      expect(index.size()).toBe(0);
    });

    it('matches exact search through a random sequence of upserts and removes', async () => {
      const index = await open();
      const random = createRandom(42);
      const model = new Map<string, MemoryIndexItem>();
      const scopes = [scope, otherScope, 'scope-c'];
      for (let step = 0; step < 60; step++) {
        const batch = Array.from({ length: 1 + Math.floor(random() * 5) }, () => ({
          id: `item-${Math.floor(random() * 80)}`,
          vector: randomVector(random, dimensions),
          scopeKey: scopes[Math.floor(random() * scopes.length)]!,
        }));
        await index.upsert(batch);
        for (const item of batch) model.set(item.id, item);
        if (random() < 0.4) {
          const ids = Array.from(
            { length: 1 + Math.floor(random() * 3) },
            () => `item-${Math.floor(random() * 80)}`,
          );
          await index.remove(ids);
          for (const id of ids) model.delete(id);
        }
        expect(index.size()).toBe(model.size);
        const query = randomVector(random, dimensions);
        const queryScope = scopes[Math.floor(random() * scopes.length)]!;
        const k = Math.floor(random() * 12);
        const hits = await index.query(query, { k, scopeKey: queryScope });
        const expected = exactTopK(model, query, k, queryScope);
        expect(hits.map((hit) => hit.id)).toEqual(expected.map((hit) => hit.id));
        hits.forEach((hit, position) => {
          expect(hit.score).toBeCloseTo(expected[position]!.score, 4);
        });
      }
    });

    it('finds the true nearest neighbours among many clustered items', async () => {
      const size = 64;
      const index = await open(size);
      const random = createRandom(1234);
      const vectors = clusteredVectors(random, size, 3000, 40);
      const scopes = ['tenant-1', 'tenant-2', 'tenant-3'];
      const items = vectors.map((vector, position) => ({
        id: `card-${position}`,
        vector,
        scopeKey: scopes[position % 3]!,
      }));
      for (let start = 0; start < items.length; start += 500)
        await index.upsert(items.slice(start, start + 500));
      const removed = items.filter((_, position) => position % 10 === 0).map((item) => item.id);
      await index.remove(removed);
      expect(index.size()).toBe(items.length - removed.length);
      const model = new Map(
        items.filter((item) => !removed.includes(item.id)).map((item) => [item.id, item]),
      );

      let recallSum = 0;
      const queries = 40;
      for (let query = 0; query < queries; query++) {
        const vector = clusteredVectors(random, size, 1, 40)[0]!;
        const queryScope = scopes[query % 3]!;
        const hits = await index.query(vector, { k: 10, scopeKey: queryScope });
        expect(hits).toHaveLength(10);
        for (const hit of hits) expect(model.get(hit.id)?.scopeKey).toBe(queryScope);
        const expected = new Set(exactTopK(model, vector, 10, queryScope).map((hit) => hit.id));
        recallSum += hits.filter((hit) => expected.has(hit.id)).length / 10;
      }
      expect(recallSum / queries).toBeGreaterThanOrEqual(minimumRecall);
    });

    it('flushes and closes without error when it supports them', async () => {
      const index = await open();
      await index.upsert([{ id: 'a', vector: axis(dimensions, 0), scopeKey: scope }]);
      await index.flush?.();
      await index.flush?.();
      expect(index.size()).toBe(1);
    });

    if (reopen) {
      it('keeps upserts and removes across a reopen', async () => {
        const index = await open();
        const random = createRandom(99);
        const items = Array.from({ length: 40 }, (_, position) => ({
          id: `item-${position}`,
          vector: randomVector(random, dimensions),
          scopeKey: position % 2 === 0 ? scope : otherScope,
        }));
        await index.upsert(items);
        await index.remove(['item-0', 'item-1']);
        await index.upsert([{ id: 'item-2', vector: axis(dimensions, 5), scopeKey: otherScope }]);
        const reopened = await reopen(index);
        opened.push(reopened);
        expect(reopened.size()).toBe(38);
        const hits = await reopened.query(axis(dimensions, 5), { k: 1, scopeKey: otherScope });
        expect(hits[0]).toMatchObject({ id: 'item-2' });
        const model = new Map(items.slice(3).map((item) => [item.id, item]));
        model.set('item-2', { id: 'item-2', vector: axis(dimensions, 5), scopeKey: otherScope });
        const query = randomVector(random, dimensions);
        const all = await reopened.query(query, { k: 100, scopeKey: scope });
        expect(all.map((hit) => hit.id)).toEqual(
          exactTopK(model, query, 100, scope).map((hit) => hit.id),
        );
        // Still writable after the reopen.
        await reopened.upsert([{ id: 'item-0', vector: axis(dimensions, 6), scopeKey: scope }]);
        expect(reopened.size()).toBe(39);
      });
    }
  });
}

import { InvalidArgumentError, StorageError } from '@ctxmem/core';
import { testMemoryIndex } from '@ctxmem/core/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  missingServerMessage,
  stopTestServices,
  testServices,
} from '../../../test/setup/services.js';
import {
  loadPglitePgvector,
  openPglite,
  openPostgres,
  type TestDatabase,
} from './databases.test-support.js';
import { createPgvectorIndex, ensurePgvector } from './pgvector-index.js';

const services = await testServices();
afterAll(stopTestServices);
const pgvector = await loadPglitePgvector();

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('Expected the promise to reject.');
}

if (pgvector) {
  describe('pgvector index on PGlite', () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await openPglite(pgvector);
    }, 60_000);
    afterAll(async () => {
      await database?.cleanup();
    });

    testMemoryIndex('pgvector on PGlite', ({ dimensions }) =>
      createPgvectorIndex({ pool: database.pool, schema: database.uniqueSchema(), dimensions }),
    );

    it('is shared: a second instance sees the first one’s vectors', async () => {
      const schema = database.uniqueSchema();
      const first = await createPgvectorIndex({ pool: database.pool, schema, dimensions: 3 });
      await first.upsert([{ id: 'a', vector: new Float32Array([1, 0, 0]), scopeKey: 's' }]);
      const second = await createPgvectorIndex({ pool: database.pool, schema, dimensions: 3 });
      expect(second.size()).toBe(1);
      expect(await second.query(new Float32Array([1, 0, 0]), { k: 5, scopeKey: 's' })).toEqual([
        { id: 'a', score: expect.closeTo(1, 5) },
      ]);
      await second.upsert([{ id: 'b', vector: new Float32Array([0, 1, 0]), scopeKey: 's' }]);
      expect(first.size()).toBe(1);
      expect(await first.refreshSize()).toBe(2);
    });

    it('scores a zero vector 0 instead of NaN', async () => {
      const index = await createPgvectorIndex({
        pool: database.pool,
        schema: database.uniqueSchema(),
        dimensions: 2,
      });
      await index.upsert([{ id: 'zero', vector: new Float32Array(2), scopeKey: 's' }]);
      expect(await index.query(new Float32Array([1, 0]), { k: 1, scopeKey: 's' })).toEqual([
        { id: 'zero', score: 0 },
      ]);
    });

    it('builds an HNSW index past approximateFrom; small scopes stay exact', async () => {
      const schema = database.uniqueSchema();
      const dimensions = 8;
      let state = 7;
      const random = () => {
        state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
        return state / 2_147_483_648 - 0.5;
      };
      const vector = () => Float32Array.from({ length: dimensions }, random);
      const items = [
        ...Array.from({ length: 300 }, (_, n) => ({ id: `big-${n}`, scopeKey: 'big' })),
        ...Array.from({ length: 20 }, (_, n) => ({ id: `small-${n}`, scopeKey: 'small' })),
      ].map((item) => ({ ...item, vector: vector() }));
      const index = await createPgvectorIndex({
        pool: database.pool,
        schema,
        dimensions,
        approximateFrom: 100,
      });
      const other = await createPgvectorIndex({
        pool: database.pool,
        schema,
        dimensions,
        approximateFrom: 100,
      });
      await index.upsert(items.slice(0, 50));
      expect(index.hasHnswIndex()).toBe(false);
      await index.upsert(items.slice(50));
      expect(index.hasHnswIndex()).toBe(true);
      const { rows } = await database.pool.query(
        `SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexdef LIKE '%hnsw%'`,
        [schema],
      );
      expect(rows).toHaveLength(1);
      // A second instance finds the index instead of building another.
      const reopened = await createPgvectorIndex({
        pool: database.pool,
        schema,
        dimensions,
        approximateFrom: 100,
      });
      expect(reopened.hasHnswIndex()).toBe(true);
      // An instance opened before the build learns of the index when it refreshes.
      expect(other.hasHnswIndex()).toBe(false);
      expect(await other.refreshSize()).toBe(items.length);
      expect(other.hasHnswIndex()).toBe(true);

      const cosine = (a: Float32Array, b: Float32Array) => {
        let dot = 0;
        let lengthA = 0;
        let lengthB = 0;
        for (let position = 0; position < dimensions; position++) {
          dot += a[position]! * b[position]!;
          lengthA += a[position]! ** 2;
          lengthB += b[position]! ** 2;
        }
        return dot / Math.sqrt(lengthA * lengthB);
      };
      const exact = (query: Float32Array, scopeKey: string, k: number) =>
        items
          .filter((item) => item.scopeKey === scopeKey)
          .map((item) => ({ id: item.id, score: cosine(query, item.vector) }))
          .sort((a, b) => b.score - a.score)
          .slice(0, k)
          .map((hit) => hit.id);
      let found = 0;
      for (let round = 0; round < 20; round++) {
        const query = vector();
        const small = await reopened.query(query, { k: 5, scopeKey: 'small' });
        expect(small.map((hit) => hit.id)).toEqual(exact(query, 'small', 5));
        const big = await reopened.query(query, { k: 10, scopeKey: 'big' });
        expect(big).toHaveLength(10);
        for (const hit of big) expect(hit.id.startsWith('big-')).toBe(true);
        const scores = big.map((hit) => hit.score);
        expect(scores).toEqual([...scores].sort((a, b) => b - a));
        const truth = new Set(exact(query, 'big', 10));
        found += big.filter((hit) => truth.has(hit.id)).length;
      }
      expect(found / 200).toBeGreaterThanOrEqual(0.9);
      // The large scope's queries went through the HNSW index, the small scope's did not.
      const scans = async () => {
        await database.pool.query('SELECT pg_stat_force_next_flush()');
        const result = await database.pool.query(
          `SELECT idx_scan::integer AS scans FROM pg_stat_user_indexes
           WHERE schemaname = $1 AND indexrelname LIKE '%hnsw'`,
          [schema],
        );
        return Number(result.rows[0]?.scans);
      };
      const before = await scans();
      await reopened.query(vector(), { k: 3, scopeKey: 'small' });
      expect(await scans()).toBe(before);
      await reopened.query(vector(), { k: 3, scopeKey: 'big' });
      expect(await scans()).toBeGreaterThan(before);
    });

    it('refuses a table created with other dimensions', async () => {
      const schema = database.uniqueSchema();
      await createPgvectorIndex({ pool: database.pool, schema, dimensions: 4, table: 'vectors' });
      const error = await rejection(
        createPgvectorIndex({ pool: database.pool, schema, dimensions: 8, table: 'vectors' }),
      );
      expect(InvalidArgumentError.isInstance(error)).toBe(true);
      expect((error as Error).message).toMatch(/4 dimensions, not 8/u);
    });
  });
} else {
  describe('pgvector index on PGlite', () => {
    const message =
      'The pgvector index tests need @electric-sql/pglite-pgvector (a dev dependency of @ctxmem/postgres).';
    if (process.env.CI) {
      it('has its PGlite extension installed', () => {
        throw new Error(`${message} It is missing, and CI is set.`);
      });
    } else {
      console.warn(`skipping: ${message}`);
      it.skip(message, () => {});
    }
  });
}

describe('pgvector missing', () => {
  it('says how to get pgvector when the server cannot create the extension', async () => {
    // A server without pgvector's files answers CREATE EXTENSION with this error.
    const pool = {
      query: async (text: string) => {
        if (text.startsWith('CREATE EXTENSION')) {
          throw Object.assign(new Error('extension "vector" is not available'), { code: '0A000' });
        }
        return { rows: [], rowCount: 0 };
      },
      connect: async () => {
        throw new Error('not reached');
      },
      end: async () => {},
    };
    const error = await rejection(createPgvectorIndex({ pool, dimensions: 3 }));
    expect(StorageError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/pgvector extension is not available/u);
    expect((error as Error).message).toMatch(/createBruteForceIndex/u);
    expect((error as Error).message).toMatch(/extension "vector" is not available/u);
  });

  if (services.postgresUrl) {
    const url = services.postgresUrl;
    it('uses pgvector on the PostgreSQL server when it is installed, and explains when not', async () => {
      const database = openPostgres(url);
      try {
        const version = await ensurePgvector(database.pool).catch((error: unknown) => error);
        if (typeof version === 'string') {
          const index = await createPgvectorIndex({
            pool: database.pool,
            schema: database.uniqueSchema(),
            dimensions: 2,
          });
          await index.upsert([{ id: 'a', vector: new Float32Array([1, 0]), scopeKey: 's' }]);
          expect(await index.query(new Float32Array([1, 0]), { k: 1, scopeKey: 's' })).toEqual([
            { id: 'a', score: expect.closeTo(1, 5) },
          ]);
        } else {
          expect(StorageError.isInstance(version)).toBe(true);
          expect((version as Error).message).toMatch(/pgvector extension is not available/u);
        }
      } finally {
        await database.cleanup();
      }
    });
  } else {
    it.skip(missingServerMessage('PostgreSQL', services.problems), () => {});
  }

  it('rejects invalid dimensions before connecting', async () => {
    for (const dimensions of [0, -1, 1.5, 16_001, Number.NaN]) {
      const error = await rejection(
        createPgvectorIndex({ connectionString: 'postgres://nowhere', dimensions }),
      );
      expect(InvalidArgumentError.isInstance(error), String(dimensions)).toBe(true);
    }
  });
});

/**
 * Databases for the tests: PGlite (PostgreSQL in WebAssembly, in this process, through its
 * node-postgres adapter) and a real PostgreSQL server. Every store a test creates gets its own
 * schema, so tests never see each other's rows; `cleanup` drops them.
 */
import { randomUUID } from 'node:crypto';
import { PGlite, type PGliteOptions } from '@electric-sql/pglite';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import pg from 'pg';
import type { PostgresPool } from './connection.js';
import {
  createPostgresStores,
  type PostgresStores,
  type PostgresStoresOptions,
} from './create-postgres-stores.js';

export interface TestDatabase {
  name: string;
  pool: PostgresPool;
  /** Stores in a new, migrated schema. */
  stores(options?: Omit<PostgresStoresOptions, 'pool' | 'schema'>): Promise<PostgresStores>;
  /** `count` sets of stores over one new, migrated schema, as `count` application instances. */
  instances(count: number): Promise<PostgresStores[]>;
  /** A schema name no other test uses. */
  uniqueSchema(): string;
  /** Drops the schemas made so far and closes the connection. */
  cleanup(): Promise<void>;
}

function testDatabase(name: string, pool: PostgresPool, close: () => Promise<void>): TestDatabase {
  const schemas: string[] = [];
  const uniqueSchema = () => {
    const schema = `ctxmem_test_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
    schemas.push(schema);
    return schema;
  };
  return {
    name,
    pool,
    uniqueSchema,
    async stores(options = {}) {
      const stores = createPostgresStores({ ...options, pool, schema: uniqueSchema() });
      await stores.migrate();
      return stores;
    },
    async instances(count) {
      const schema = uniqueSchema();
      const opened = Array.from({ length: count }, () => createPostgresStores({ pool, schema }));
      await opened[0]?.migrate();
      return opened;
    },
    async cleanup() {
      for (const schema of schemas.splice(0)) {
        await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      }
      await pool.end();
      await close();
    },
  };
}

/** PGlite in memory, optionally with extensions (pgvector). */
export async function openPglite(
  extensions: PGliteOptions['extensions'] = {},
): Promise<TestDatabase> {
  const database = await PGlite.create({ extensions });
  const pool: PostgresPool = new pg.Pool(createPgConfig(database));
  return testDatabase('PGlite', pool, () => database.close());
}

/** A real PostgreSQL server. */
export function openPostgres(connectionString: string): TestDatabase {
  const pool: PostgresPool = new pg.Pool({ connectionString, max: 10 });
  return testDatabase('PostgreSQL', pool, async () => {});
}

/** The pgvector extension for PGlite, when its package is installed. */
export async function loadPglitePgvector(): Promise<PGliteOptions['extensions'] | undefined> {
  try {
    const specifier = '@electric-sql/pglite-pgvector';
    const module = (await import(specifier)) as {
      vector: NonNullable<PGliteOptions['extensions']>[string];
    };
    return { vector: module.vector };
  } catch {
    return undefined;
  }
}

import {
  type DriverStores,
  type DriverStoresOptions,
  requireOptions,
  resolveDriverOptions,
} from '@ctxmem/core/driver-kit';
import {
  assertConnectionOptions,
  type PostgresConnectionOptions,
  type PostgresPool,
  quoteIdentifier,
  type ResolvedPool,
  resolvePool,
} from './connection.js';
import type { StoreContext } from './context.js';
import { type MigrationResult, migrateSchema, schemaVersion } from './migrations.js';
import { createPostgresHistoryStore } from './postgres-history-store.js';
import { createPostgresLeases } from './postgres-leases.js';
import { createPostgresMemoryStore, type PostgresMemoryStore } from './postgres-memory-store.js';
import { createPostgresOffloadStore } from './postgres-offload-store.js';

export interface PostgresStoresOptions extends PostgresConnectionOptions, DriverStoresOptions {}

export interface PostgresStores extends DriverStores<PostgresMemoryStore> {
  /**
   * Creates or upgrades the tables (see `MIGRATIONS`). Run it once at deploy or start-up; it is
   * idempotent and safe to run from several processes at once.
   */
  migrate(): Promise<MigrationResult>;
  /** The schema's version: 0 before the first `migrate()`. */
  schemaVersion(): Promise<number>;
  /** Ends the pool when this call opened it from `connectionString`; a given pool is left open. */
  close(): Promise<void>;
}

/**
 * History, working state, offloads and memory cards in one PostgreSQL schema, shared by every
 * instance of an application. `pg` is loaded on first use when a `connectionString` is given.
 *
 * @example
 * const stores = createPostgresStores({ connectionString: process.env.DATABASE_URL });
 * await stores.migrate();
 * const manager = createContextManager({
 *   model: 'gpt-4o',
 *   historyStore: stores.history,
 *   offloadStore: stores.offload,
 *   memory: { store: stores.memory },
 * });
 */
export function createPostgresStores(given: PostgresStoresOptions = {}): PostgresStores {
  const {
    pool,
    connectionString,
    schema = 'ctxmem',
    ...options
  } = requireOptions(given, 'createPostgresStores');
  const quotedSchema = quoteIdentifier(schema, 'schema');
  const { required, clock, messageIds, cardIds } = resolveDriverOptions(options);
  let opened: Promise<ResolvedPool> | undefined;
  let closed = false;
  const connection = (): Promise<PostgresPool> => {
    // A failed load of pg is forgotten, so the next call tries again.
    opened ??= resolvePool({ pool, connectionString }).catch((error: unknown) => {
      opened = undefined;
      throw error;
    });
    return opened.then((resolved) => resolved.pool);
  };
  // Fail at construction, not on the first query, when neither is given.
  assertConnectionOptions({ pool, connectionString });
  const context: StoreContext = { pool: connection, schema: quotedSchema, required, clock };
  return {
    history: createPostgresHistoryStore(context, messageIds),
    offload: createPostgresOffloadStore(context),
    leases: createPostgresLeases(context),
    memory: createPostgresMemoryStore(context, cardIds),
    async migrate() {
      return migrateSchema(await connection(), schema, quotedSchema);
    },
    async schemaVersion() {
      return schemaVersion(await connection(), schema, quotedSchema);
    },
    async close() {
      if (closed || !opened) return;
      closed = true;
      const resolved = await opened.catch(() => undefined);
      if (resolved?.owned) await resolved.pool.end();
    },
  };
}

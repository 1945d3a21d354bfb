export type { Lease, LeaseStore } from '@ctxmem/core/driver-kit';
export {
  loadPg,
  type PostgresConnectionOptions,
  type PostgresPool,
  type PostgresPoolClient,
  type PostgresQueryable,
  type PostgresQueryResult,
} from './connection.js';
export {
  createPostgresStores,
  type PostgresStores,
  type PostgresStoresOptions,
} from './create-postgres-stores.js';
export { MIGRATIONS, type Migration, type MigrationResult, SCHEMA_VERSION } from './migrations.js';
export {
  createPgvectorIndex,
  ensurePgvector,
  type PgvectorIndex,
  type PgvectorIndexOptions,
} from './pgvector-index.js';
export type { KeywordHit, PostgresMemoryStore } from './postgres-memory-store.js';

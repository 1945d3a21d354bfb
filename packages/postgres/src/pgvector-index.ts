import {
  InvalidArgumentError,
  type MemoryIndex,
  type MemoryIndexHit,
  type MemoryIndexItem,
  StorageError,
} from '@ctxmem/core';
import {
  checkIndexIds,
  normalizedVector,
  prepareIndexItems,
  requireOptions,
} from '@ctxmem/core/driver-kit';
import {
  inTransaction,
  type PostgresConnectionOptions,
  type PostgresPool,
  quoteIdentifier,
  resolvePool,
  toStorageError,
  withStorageErrors,
} from './connection.js';

export interface PgvectorIndexOptions extends PostgresConnectionOptions {
  /** Length of every vector (the embedder's dimensions). */
  dimensions: number;
  /**
   * The table holding the vectors, created on first use in `schema`. One table holds one
   * dimension: a table created with other dimensions is an error.
   * @default `memory_vectors_<dimensions>`
   */
  table?: string;
  /**
   * Vectors in one scope from which queries of that scope use a pgvector HNSW index (approximate:
   * recall about 0.95 or better at the default `ef_search`) instead of the exact scan. The index is
   * built once, when the table first holds this many vectors (an upsert or the opening of the
   * index then waits for the build, and writes to the table wait too); scopes smaller than this
   * are always scanned exactly, index or not. `Infinity` keeps every query exact.
   * @default 10_000
   */
  approximateFrom?: number;
  /**
   * pgvector's `hnsw.ef_search` for approximate queries: higher finds more of the true nearest
   * vectors, more slowly. At least `k` is used.
   * @default 100
   */
  efSearch?: number;
}

/** A `MemoryIndex` in PostgreSQL with pgvector. `size()` is this instance's count (see below). */
export interface PgvectorIndex extends MemoryIndex {
  /** Re-reads the number of vectors in the table, written by any process. */
  refreshSize(): Promise<number>;
  /**
   * Whether the table has its HNSW index (built once the table reached `approximateFrom`), as of
   * opening, this instance's last upsert or `refreshSize()`.
   */
  hasHnswIndex(): boolean;
}

function checkPositive(value: unknown, argument: string): asserts value is number {
  if (typeof value !== 'number' || Number.isNaN(value) || value < 1) {
    throw new InvalidArgumentError({
      message: `${argument} must be a number >= 1; got ${String(value)}.`,
      argument,
    });
  }
}

function checkDimensions(dimensions: unknown): asserts dimensions is number {
  if (
    typeof dimensions !== 'number' ||
    !Number.isInteger(dimensions) ||
    dimensions < 1 ||
    dimensions > 16_000
  ) {
    throw new InvalidArgumentError({
      message: `dimensions must be an integer from 1 to 16000 (pgvector's limit); got ${String(dimensions)}.`,
      argument: 'dimensions',
    });
  }
}

/**
 * Checks a vector and returns it L2-normalised as pgvector's text form. Vectors are stored
 * normalised so the inner product is the cosine; a zero vector stays zero and scores 0.
 */
function vectorLiteral(vector: unknown, dimensions: number, argument: string): string {
  return `[${normalizedVector(vector, dimensions, argument).join(',')}]`;
}

const MISSING_EXTENSION =
  'The pgvector extension is not available on this PostgreSQL server. Install pgvector (packages such as postgresql-16-pgvector, or the pgvector/pgvector Docker image) and let a privileged user run `CREATE EXTENSION vector`, or use a MemoryIndex that needs no extension (createBruteForceIndex from @ctxmem/core, or @ctxmem/hnswlib).';

/**
 * Makes sure the `vector` extension is installed in the database: already there, or created now.
 * Throws a `StorageError` that says how to get pgvector when it cannot be.
 */
export async function ensurePgvector(pool: PostgresPool): Promise<string> {
  const installed = await withStorageErrors('look for the pgvector extension', () =>
    pool.query(`SELECT extversion FROM pg_extension WHERE extname = 'vector'`),
  );
  if (installed.rows[0]) return String(installed.rows[0].extversion);
  try {
    await pool.query('CREATE EXTENSION IF NOT EXISTS vector');
  } catch (error) {
    throw new StorageError({
      message: `${MISSING_EXTENSION} (PostgreSQL said: ${error instanceof Error ? error.message : String(error)})`,
      path: undefined,
      cause: error,
    });
  }
  const created = await pool.query(`SELECT extversion FROM pg_extension WHERE extname = 'vector'`);
  return String(created.rows[0]?.extversion ?? '');
}

/**
 * A vector index over memory cards in PostgreSQL with pgvector, shared by every instance of an
 * application. Vectors are stored normalised and ranked by inner product (= cosine). A scope with
 * fewer than `approximateFrom` vectors is scanned exactly through a B-tree on `scope_key`, so
 * small scopes (and the conformance suite) get exact results. Once the table holds that many
 * vectors it gets a pgvector HNSW index, which queries of scopes at least that large use instead
 * of reading every row of the scope; they run with `hnsw.iterative_scan` (pgvector 0.8 and later)
 * so the scope filter still yields `k` rows.
 *
 * `size()` must answer synchronously: it is the table's count when the index was opened (or
 * `refreshSize()` last ran), plus this instance's own inserts and minus its deletes.
 */
export async function createPgvectorIndex(options: PgvectorIndexOptions): Promise<PgvectorIndex> {
  const {
    pool,
    connectionString,
    schema = 'ctxmem',
    dimensions,
    table,
    approximateFrom = 10_000,
    efSearch = 100,
  } = requireOptions(options, 'createPgvectorIndex');
  checkDimensions(dimensions);
  checkPositive(approximateFrom, 'approximateFrom');
  checkPositive(efSearch, 'efSearch');
  const quotedSchema = quoteIdentifier(schema, 'schema');
  const tableName = table ?? `memory_vectors_${dimensions}`;
  const quotedTable = `${quotedSchema}.${quoteIdentifier(tableName, 'table')}`;
  const hnswName = `${tableName}_hnsw`.slice(0, 63);
  const resolved = await resolvePool({ pool, connectionString });
  const database = resolved.pool;
  try {
    await ensurePgvector(database);
    await withStorageErrors(`create the vector table ${schema}.${tableName}`, () =>
      inTransaction(database, async (client) => {
        await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
          `ctxmem:migrate:${schema}`,
        ]);
        await client.query(`CREATE SCHEMA IF NOT EXISTS ${quotedSchema}`);
        await client.query(
          `CREATE TABLE IF NOT EXISTS ${quotedTable} (
             id text PRIMARY KEY,
             scope_key text NOT NULL,
             embedding vector(${dimensions}) NOT NULL
           )`,
        );
        await client.query(
          `CREATE INDEX IF NOT EXISTS ${quoteIdentifier(`${tableName}_scope`.slice(0, 63), 'table')}
           ON ${quotedTable} (scope_key)`,
        );
        const { rows } = await client.query(
          `SELECT atttypmod FROM pg_attribute WHERE attrelid = $1::regclass AND attname = 'embedding'`,
          [quotedTable],
        );
        const stored = Number(rows[0]?.atttypmod);
        if (stored !== dimensions) {
          throw new InvalidArgumentError({
            message: `The table ${schema}.${tableName} holds vectors of ${stored} dimensions, not ${dimensions}: pass another table.`,
            argument: 'dimensions',
          });
        }
      }),
    );
  } catch (error) {
    if (resolved.owned) await database.end().catch(() => undefined);
    throw error;
  }

  async function countRows(): Promise<number> {
    const { rows } = await database.query(`SELECT count(*)::integer AS count FROM ${quotedTable}`);
    return Number(rows[0]?.count ?? 0);
  }

  let count = await withStorageErrors('count vectors', countRows);
  let closed = false;
  let hnsw = false;
  let iterativeScan = false;

  /** Builds the HNSW index once (under the schema's lock, so two processes never both build). */
  async function ensureHnsw(): Promise<void> {
    await withStorageErrors(`create the HNSW index of ${schema}.${tableName}`, () =>
      inTransaction(database, async (client) => {
        await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
          `ctxmem:migrate:${schema}`,
        ]);
        await client.query(
          `CREATE INDEX IF NOT EXISTS ${quoteIdentifier(hnswName, 'table')}
           ON ${quotedTable} USING hnsw (embedding vector_ip_ops)`,
        );
      }),
    );
    hnsw = true;
  }

  /** Whether the HNSW index exists (another process may have built it). */
  const lookForHnsw = () =>
    withStorageErrors('look for the HNSW index', async () => {
      const { rows } = await database.query(
        `SELECT to_regclass($1) IS NOT NULL AS present,
         (SELECT string_to_array(extversion, '.')::int[] >= '{0,8}'::int[]
          FROM pg_extension WHERE extname = 'vector') AS iterative`,
        [`${quotedSchema}.${quoteIdentifier(hnswName, 'table')}`],
      );
      hnsw = rows[0]?.present === true;
      iterativeScan = rows[0]?.iterative === true;
    });
  await lookForHnsw();
  if (!hnsw && count >= approximateFrom) await ensureHnsw();

  /** Whether the scope holds at least `approximateFrom` vectors (reads at most that many ids). */
  async function isLargeScope(scopeKey: string): Promise<boolean> {
    if (!hnsw || !Number.isFinite(approximateFrom)) return false;
    const { rows } = await database.query(
      `SELECT count(*)::integer AS count FROM
         (SELECT 1 FROM ${quotedTable} WHERE scope_key = $1 LIMIT $2) AS scope_rows`,
      [scopeKey, approximateFrom],
    );
    return Number(rows[0]?.count ?? 0) >= approximateFrom;
  }

  return {
    dimensions,

    async upsert(items: readonly MemoryIndexItem[]) {
      // Validate the whole batch first; of duplicate ids the last wins, like consecutive upserts.
      const byId = new Map(
        prepareIndexItems(items, (vector, argument) =>
          vectorLiteral(vector, dimensions, argument),
        ).map(({ id, scopeKey, vector }) => [id, { scopeKey, literal: vector }]),
      );
      if (byId.size === 0) return;
      const ids = [...byId.keys()];
      const { rows } = await withStorageErrors('upsert vectors', () =>
        database.query(
          `INSERT INTO ${quotedTable} (id, scope_key, embedding)
           SELECT item.id, item.scope_key, item.embedding::vector
           FROM unnest($1::text[], $2::text[], $3::text[]) AS item(id, scope_key, embedding)
           ON CONFLICT (id) DO UPDATE SET scope_key = excluded.scope_key, embedding = excluded.embedding
           RETURNING (xmax = 0) AS inserted`,
          [ids, ids.map((id) => byId.get(id)!.scopeKey), ids.map((id) => byId.get(id)!.literal)],
        ),
      );
      count += (rows as Array<{ inserted: boolean }>).filter((row) => row.inserted).length;
      if (!hnsw && count >= approximateFrom) await ensureHnsw();
    },

    async remove(ids: readonly string[]) {
      checkIndexIds(ids);
      if (ids.length === 0) return;
      const { rowCount } = await withStorageErrors('remove vectors', () =>
        database.query(`DELETE FROM ${quotedTable} WHERE id = ANY($1::text[])`, [
          [...new Set(ids)],
        ]),
      );
      count = Math.max(0, count - (rowCount ?? 0));
    },

    async query(vector, { k, scopeKey }): Promise<MemoryIndexHit[]> {
      const literal = vectorLiteral(vector, dimensions, 'vector');
      if (typeof scopeKey !== 'string') {
        throw new InvalidArgumentError({
          message: 'scopeKey must be a string',
          argument: 'scopeKey',
        });
      }
      if (typeof k !== 'number' || Number.isNaN(k) || k < 0) {
        throw new InvalidArgumentError({
          message: `k must be a number >= 0, got ${String(k)}`,
          argument: 'k',
        });
      }
      const limit = Number.isFinite(k) ? Math.floor(k) : null;
      if (limit === 0) return [];
      const { rows } = await withStorageErrors('query vectors', async () => {
        if (!(await isLargeScope(scopeKey))) {
          // `+ 0` keeps the planner off the HNSW index: small scopes get the exact order.
          return database.query(
            `SELECT id, -(embedding <#> $1::vector) AS score FROM ${quotedTable}
             WHERE scope_key = $2 ORDER BY (embedding <#> $1::vector) + 0, id LIMIT $3`,
            [literal, scopeKey, limit],
          );
        }
        return inTransaction(database, async (client) => {
          const search = Math.min(1_000, Math.max(efSearch, limit ?? efSearch));
          await client.query(`SET LOCAL hnsw.ef_search = ${Math.floor(search)}`);
          if (iterativeScan) await client.query(`SET LOCAL hnsw.iterative_scan = relaxed_order`);
          // The planner prices a scan of the scope and a sort below the HNSW index until tables
          // are far larger than this scope; past `approximateFrom` the index is what was asked.
          await client.query('SET LOCAL enable_seqscan = off');
          await client.query('SET LOCAL enable_sort = off');
          // A relaxed iterative scan may return rows slightly out of order: sort them again.
          return client.query(
            `SELECT id, score FROM (
               SELECT id, -(embedding <#> $1::vector) AS score FROM ${quotedTable}
               WHERE scope_key = $2 ORDER BY embedding <#> $1::vector LIMIT $3
             ) AS nearest ORDER BY score DESC, id`,
            [literal, scopeKey, limit],
          );
        });
      });
      return (rows as Array<{ id: string; score: number }>).map((row) => ({
        id: row.id,
        score: Number(row.score),
      }));
    },

    size() {
      return count;
    },

    async refreshSize() {
      count = await withStorageErrors('count vectors', countRows);
      if (!hnsw) await lookForHnsw();
      return count;
    },

    hasHnswIndex() {
      return hnsw;
    },

    async flush() {
      // Every write is committed when it resolves: nothing to flush.
    },

    async close() {
      if (closed) return;
      closed = true;
      if (resolved.owned)
        await database.end().catch((error) => {
          throw toStorageError(error, 'close the pool');
        });
    },
  };
}

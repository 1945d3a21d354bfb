import { InvalidArgumentError } from '@ctxmem/core';
import {
  assertConnectionTarget,
  databaseErrors,
  guardErrorEvents,
  isErrorEventEmitter,
  isSocketErrorCode,
  loadPeerDependency,
} from '@ctxmem/core/driver-kit';

/** What the stores need of a query result. */
export interface PostgresQueryResult<Row> {
  rows: Row[];
  rowCount: number | null;
}

/** Anything that runs a parameterised query: a `pg` `Pool`, `Client` or pooled client. */
export interface PostgresQueryable {
  // biome-ignore lint/suspicious/noExplicitAny: rows are typed per query by the stores.
  query(text: string, values?: unknown[]): Promise<PostgresQueryResult<any>>;
}

/** A client checked out of a pool, for a transaction. */
export interface PostgresPoolClient extends PostgresQueryable {
  release(error?: Error | boolean): void;
}

/**
 * The part of a `pg.Pool` the stores use. Any pool that follows node-postgres works, including
 * PGlite through `@electric-sql/pglite/node-postgres`.
 */
export interface PostgresPool extends PostgresQueryable {
  connect(): Promise<PostgresPoolClient>;
  end(): Promise<void>;
}

/** How the stores reach the database: an existing pool, or a connection string to open one. */
export interface PostgresConnectionOptions {
  /** A `pg.Pool` (or compatible). The stores never end a pool they were given. */
  pool?: PostgresPool;
  /**
   * A connection string, used when no `pool` is given: a pool is opened (with `pg`, loaded on
   * first use) and ended by `close()`.
   * @default undefined
   */
  connectionString?: string;
  /**
   * The PostgreSQL schema holding the tables. Several applications (or tests) can share a database
   * with different schemas.
   * @default 'ctxmem'
   */
  schema?: string;
}

type PgModule = { Pool: new (config: { connectionString: string }) => PostgresPool };

/**
 * Loads `pg` on first use (see driver-kit's `loadPeerDependency`): importing this package costs
 * nothing, and a missing `pg` is a `StorageError` saying to install it.
 */
export async function loadPg(
  importer: () => Promise<unknown> = () => import('pg'),
): Promise<PgModule> {
  const Pool = await loadPeerDependency<PgModule['Pool']>(importer, {
    name: 'pg',
    driver: '@ctxmem/postgres',
    stores: 'PostgreSQL',
    exportName: 'Pool',
    minimum: 'pg 8',
  });
  return { Pool };
}

/** The pool to use and whether this package opened it (and so must end it). */
export interface ResolvedPool {
  pool: PostgresPool;
  owned: boolean;
}

/** Throws `InvalidArgumentError` unless a pool or a connection string is given. */
export function assertConnectionOptions({
  pool,
  connectionString,
}: PostgresConnectionOptions): void {
  assertConnectionTarget({
    given: pool,
    usable: (given) =>
      typeof (given as PostgresPool).query === 'function' &&
      typeof (given as PostgresPool).connect === 'function',
    argument: 'pool',
    invalid: '`pool` must be a pg Pool (an object with query() and connect()).',
    url: connectionString,
    missing: 'Pass a pg Pool as `pool`, or a PostgreSQL URL as `connectionString`.',
  });
}

/**
 * Keeps the `'error'` events a pool emits for its idle clients from ending the process (see
 * driver-kit's `guardErrorEvents`): node-postgres emits one when a connection that sits unused in
 * the pool dies, after it has already dropped that client; the next query opens a new connection,
 * and a call that was running on it rejects on its own as a `StorageError`. Always added to a pool
 * the stores opened; to a given pool only when it has no `'error'` listener of its own.
 */
export function guardPool(pool: PostgresPool, owned: boolean): void {
  guardErrorEvents(pool, owned);
}

/** Opens the configured pool, or takes the given one, and guards it against idle-client errors. */
export async function resolvePool(options: PostgresConnectionOptions): Promise<ResolvedPool> {
  assertConnectionOptions(options);
  if (options.pool) {
    guardPool(options.pool, false);
    return { pool: options.pool, owned: false };
  }
  const { Pool } = await loadPg();
  const pool = new Pool({ connectionString: options.connectionString! });
  guardPool(pool, true);
  return { pool, owned: true };
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** Validates a schema or table name and returns it double-quoted for SQL. */
export function quoteIdentifier(name: unknown, argument: string): string {
  if (typeof name !== 'string' || !IDENTIFIER.test(name)) {
    throw new InvalidArgumentError({
      message: `${argument} must be a plain SQL identifier (letters, digits and _, at most 63, not starting with a digit); got ${JSON.stringify(name)}.`,
      argument,
    });
  }
  return `"${name}"`;
}

interface PostgresErrorLike {
  code?: unknown;
  message?: unknown;
}

const HINTS: Readonly<Record<string, string>> = {
  '42P01': 'a ctxmem table is missing: run `await stores.migrate()` once before using the stores',
  '3F000':
    'the ctxmem schema is missing: run `await stores.migrate()` once before using the stores',
};

const CONNECTION_LOST =
  'the connection to PostgreSQL was lost or refused; the pool opens a new one on the next call';

/**
 * Whether an error means the connection is gone rather than the statement being wrong: SQLSTATE
 * class 08 (connection exception) or 57P01–57P03 (the server terminated or is shutting down the
 * backend), a socket error, or node-postgres noticing that the socket closed.
 */
function isConnectionLoss(code: unknown, message: string): boolean {
  if (typeof code === 'string') {
    if (code.startsWith('08') || /^57P0[123]$/u.test(code)) return true;
    if (isSocketErrorCode(code)) return true;
  }
  return /Connection terminated|Client has encountered a connection error/u.test(message);
}

/**
 * Wraps a database failure in a `StorageError` that says what was being done, PostgreSQL's
 * message and SQLSTATE, and a hint for the usual cause (`withStorageErrors` runs work and maps
 * what it throws). ctxmem errors pass through unchanged.
 */
export const { toStorageError, withStorageErrors } = databaseErrors({
  database: 'PostgreSQL',
  describe(error) {
    const { code, message } = (error ?? {}) as PostgresErrorLike;
    const detail = typeof message === 'string' ? message : String(error);
    const hint =
      (typeof code === 'string' ? HINTS[code] : undefined) ??
      (isConnectionLoss(code, detail) ? CONNECTION_LOST : undefined);
    return {
      detail,
      suffix: `${typeof code === 'string' ? ` (${code})` : ''}${hint ? `; ${hint}.` : ''}`,
    };
  },
});

/**
 * Runs `work` in a transaction on one pooled client: committed when it resolves, rolled back
 * when it throws. A client whose rollback fails is discarded rather than returned to the pool.
 */
export async function inTransaction<Result>(
  pool: PostgresPool,
  work: (client: PostgresPoolClient) => Promise<Result>,
): Promise<Result> {
  const client = await pool.connect();
  let broken: Error | undefined;
  // While checked out, a client has no 'error' listener of the pool's: one that loses its
  // connection between two queries would end the process. The loss is recorded and the client
  // discarded on release; the query in flight, or the next one, rejects with the same cause.
  const onError = (error: unknown) => {
    broken ??= error instanceof Error ? error : new Error(String(error));
  };
  const emitter = isErrorEventEmitter(client) ? client : undefined;
  emitter?.on('error', onError);
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    try {
      await client.query('ROLLBACK');
    } catch (rollbackError) {
      broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
    }
    throw error;
  } finally {
    emitter?.removeListener('error', onError);
    client.release(broken);
  }
}

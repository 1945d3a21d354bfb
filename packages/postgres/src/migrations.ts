import { StorageError } from '@ctxmem/core';
import {
  commitMemoryCardsFunction,
  commitMemoryCardWritesFunction,
} from './commit-memory-cards.js';
import { inTransaction, type PostgresPool, withStorageErrors } from './connection.js';

/** One step of the schema. Steps are never edited once released: changes are new steps. */
export interface Migration {
  version: number;
  description: string;
  /** SQL statements, given the quoted schema name. */
  statements: (schema: string) => string[];
}

/**
 * The schema, step by step. Messages, states, offloads and cards are stored as JSON text rather
 * than `jsonb`: `jsonb` rejects `\u0000` and lone surrogates, which messages may contain, and the
 * stores never query inside them. Card content is copied to `search_text` for the keyword index.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'history, working state, offloads and memory cards with keyword search',
    statements: (schema) => [
      `CREATE TABLE ${schema}.history_heads (
        scope_key text PRIMARY KEY,
        next_index integer NOT NULL,
        turn integer NOT NULL
      )`,
      `CREATE TABLE ${schema}.history_messages (
        scope_key text NOT NULL,
        message_index integer NOT NULL,
        turn integer NOT NULL,
        created_at text NOT NULL,
        message text NOT NULL,
        PRIMARY KEY (scope_key, message_index)
      )`,
      `CREATE INDEX history_messages_turn ON ${schema}.history_messages (scope_key, turn)`,
      `CREATE TABLE ${schema}.working_states (
        scope_key text PRIMARY KEY,
        version integer NOT NULL CHECK (version > 0),
        state text NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`,
      `CREATE TABLE ${schema}.offloads (
        scope_key text NOT NULL,
        id text NOT NULL,
        created_at text NOT NULL,
        message text NOT NULL,
        PRIMARY KEY (scope_key, id)
      )`,
      `CREATE TABLE ${schema}.memory_scopes (
        scope_key text PRIMARY KEY,
        revision bigint NOT NULL
      )`,
      `CREATE TABLE ${schema}.memory_cards (
        scope_key text NOT NULL,
        id text NOT NULL,
        position bigint GENERATED ALWAYS AS IDENTITY,
        card text NOT NULL,
        superseded_by text,
        search_text text NOT NULL,
        search tsvector GENERATED ALWAYS AS (to_tsvector('english'::regconfig, search_text)) STORED,
        PRIMARY KEY (scope_key, id)
      )`,
      `CREATE INDEX memory_cards_position ON ${schema}.memory_cards (scope_key, position)`,
      `CREATE INDEX memory_cards_search ON ${schema}.memory_cards USING gin (search)`,
    ],
  },
  {
    version: 2,
    description: 'keyword terms from core’s analyzer (CJK n-grams), written by the store',
    // The store now writes `search` from core's analyzer, so PostgreSQL and the file store find
    // the same cards (CJK included). Cards stored before keep PostgreSQL's English analysis until
    // they are rewritten; it agrees with core's on English words but not on CJK.
    // `fastupdate = off`: with it on, new cards wait in the GIN index's pending list (up to 4 MB)
    // until a vacuum, and every search reads that list from start to end — measured 12 ms for a
    // query that matches nothing after 20,000 adds, 0.1 ms with it off.
    statements: (schema) => [
      `ALTER TABLE ${schema}.memory_cards ALTER COLUMN search DROP EXPRESSION`,
      `ALTER INDEX ${schema}.memory_cards_search SET (fastupdate = off)`,
    ],
  },
  {
    version: 3,
    description: 'memory cards stamped with the scope revision that wrote them',
    // Each process keeps the scope's cards indexed in memory and catches up by reading only the
    // cards stamped after the revision it has (see `@ctxmem/core/driver-kit`'s synced cards), so an
    // add neither reads nor merges against the whole scope. A removal cannot be replayed that way:
    // it moves `reset_revision`, and caches older than it read the scope again.
    statements: (schema) => [
      `ALTER TABLE ${schema}.memory_cards ADD COLUMN revision bigint NOT NULL DEFAULT 0`,
      `ALTER TABLE ${schema}.memory_scopes ADD COLUMN reset_revision bigint NOT NULL DEFAULT 0`,
      `CREATE INDEX memory_cards_revision ON ${schema}.memory_cards (scope_key, revision)`,
    ],
  },
  {
    version: 4,
    description: 'leases: expiring claims on a job of a scope',
    statements: (schema) => [
      `CREATE TABLE ${schema}.leases (
        scope_key text NOT NULL,
        name text NOT NULL,
        holder text NOT NULL,
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (scope_key, name)
      )`,
    ],
  },
  {
    version: 5,
    description:
      'memory card conflict keys: adds to one scope commit unless a change since matters',
    // An add merges against the cards its process has cached, then commits through
    // `commit_memory_cards` in one round trip. The function takes the scope's row lock (held to
    // commit, so the commits of a scope run one at a time) and commits unless a card written since
    // the merge's revision carries a key the merge looked up (driver-kit's conflict keys): writers
    // adding unrelated cards to one scope no longer make each other merge again.
    // `memory_card_keys` holds the last revision that wrote each key. `keyed_revision` is the last
    // revision written with keys and `keys_from` the first revision from which every write has
    // them: a write by an older version of this package (no keys) makes callers older than it
    // compare revisions exactly. A volatile PL/pgSQL function takes a new snapshot for each
    // statement, so what it reads after the lock includes every commit before it.
    statements: (schema) => [
      `ALTER TABLE ${schema}.memory_scopes ADD COLUMN keyed_revision bigint NOT NULL DEFAULT -1,
        ADD COLUMN keys_from bigint NOT NULL DEFAULT 0`,
      `CREATE TABLE ${schema}.memory_card_keys (
        scope_key text NOT NULL,
        conflict_key text NOT NULL,
        revision bigint NOT NULL,
        PRIMARY KEY (scope_key, conflict_key)
      )`,
      commitMemoryCardsFunction(schema),
    ],
  },
  {
    version: 6,
    description: 'memory card commits without the other writers’ cards; one scope row write each',
    // Adds commit through `commit_memory_card_writes`, which no longer sends back the cards other
    // writers committed since the merge's revision: each process catches up lazily (when a key it
    // looks up collides, or when it lists the scope), so many writers adding to one scope neither
    // read nor index each other's cards. Nothing is stored differently: version 5 processes keep
    // calling `commit_memory_cards`, which stays, and both check the same keys and revisions.
    statements: (schema) => [commitMemoryCardWritesFunction(schema)],
  },
];

/** The newest schema version this package knows. */
export const SCHEMA_VERSION = MIGRATIONS.at(-1)!.version;

export interface MigrationResult {
  /** The version before the call (0 for an empty database). */
  from: number;
  /** The version after the call. */
  to: number;
  /** The versions applied by this call. */
  applied: number[];
}

/**
 * Brings `schema` to the newest version in one transaction, under a transaction-scoped advisory
 * lock keyed by the schema name, so that several processes migrating at once apply each step
 * exactly once (the others wait, then find nothing to do). Idempotent. Refuses a database whose
 * schema is newer than this package.
 */
export async function migrateSchema(
  pool: PostgresPool,
  schemaName: string,
  quotedSchema: string,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<MigrationResult> {
  return withStorageErrors(`migrate schema ${schemaName}`, () =>
    inTransaction(pool, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
        `ctxmem:migrate:${schemaName}`,
      ]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${quotedSchema}`);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${quotedSchema}.schema_version (
          version integer PRIMARY KEY,
          description text NOT NULL,
          applied_at timestamptz NOT NULL DEFAULT now()
        )`,
      );
      const { rows } = await client.query(
        `SELECT coalesce(max(version), 0)::integer AS version FROM ${quotedSchema}.schema_version`,
      );
      const from = Number(rows[0]?.version ?? 0);
      const newest = migrations.at(-1)?.version ?? 0;
      if (from > newest) {
        throw new StorageError({
          message: `The PostgreSQL schema ${schemaName} is at version ${from}, newer than this @ctxmem/postgres supports (${newest}); upgrade @ctxmem/postgres.`,
          path: schemaName,
        });
      }
      const applied: number[] = [];
      for (const migration of migrations) {
        if (migration.version <= from) continue;
        for (const statement of migration.statements(quotedSchema)) await client.query(statement);
        await client.query(
          `INSERT INTO ${quotedSchema}.schema_version (version, description) VALUES ($1, $2)`,
          [migration.version, migration.description],
        );
        applied.push(migration.version);
      }
      return { from, to: Math.max(from, newest), applied };
    }),
  );
}

/** The schema's version: 0 when it has never been migrated. */
export async function schemaVersion(
  pool: PostgresPool,
  schemaName: string,
  quotedSchema: string,
): Promise<number> {
  return withStorageErrors(`read the version of schema ${schemaName}`, async () => {
    const { rows } = await pool.query(`SELECT to_regclass($1) IS NOT NULL AS present`, [
      `${quotedSchema}.schema_version`,
    ]);
    if (!rows[0]?.present) return 0;
    const result = await pool.query(
      `SELECT coalesce(max(version), 0)::integer AS version FROM ${quotedSchema}.schema_version`,
    );
    return Number(result.rows[0]?.version ?? 0);
  });
}

/**
 * What the PostgreSQL stores do beyond the conformance suites: the versioned migration, keyword
 * search, connection handling and error messages. Runs on PGlite, and on a real server when one
 * is available.
 */

import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  InvalidArgumentError,
  InvalidIdError,
  ScopeRequiredError,
  StorageError,
  scopeKey,
} from '@ctxmem/core';
import { encodeCard } from '@ctxmem/core/driver-kit';
import { createFakeClock, rejection, until, withoutUncaughtErrors } from '@ctxmem/core/test';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  missingServerMessage,
  postgresBinaries,
  startServices,
  stopTestServices,
  testServices,
} from '../../../test/setup/services.js';
import { loadPg } from './connection.js';
import { createPostgresStores, type PostgresStores } from './create-postgres-stores.js';
import { openPglite, openPostgres, type TestDatabase } from './databases.test-support.js';
import { MIGRATIONS, type Migration, migrateSchema, SCHEMA_VERSION } from './migrations.js';

const services = await testServices();
afterAll(stopTestServices);

const alice = { userId: 'alice' };

/** The data folder of a server, asked on a connection of its own that is closed at once. */
async function showDataDirectory(connectionString: string): Promise<string> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    const { rows } = await client.query('SHOW data_directory');
    return String(rows[0].data_directory);
  } finally {
    await client.end();
  }
}

/** Runs pg_ctl on a data folder, as the folder's owner (PostgreSQL refuses to run as root). */
function pgCtl(dataDirectory: string, args: string[]): void {
  const command = [`${postgresBinaries()}/pg_ctl`, '-D', dataDirectory, ...args];
  if (process.getuid?.() === 0) {
    const owner = execFileSync('stat', ['-c', '%U', dataDirectory], { encoding: 'utf8' }).trim();
    command.unshift('runuser', '-u', owner, '--');
  }
  execFileSync(command[0]!, command.slice(1), { stdio: 'pipe', timeout: 60_000 });
}

function behaviour(name: string, open: () => Promise<TestDatabase>) {
  describe(`PostgreSQL stores on ${name}`, () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await open();
    }, 60_000);
    afterAll(async () => {
      await database?.cleanup();
    });

    describe('migrate', () => {
      it('creates the schema at the newest version, once', async () => {
        const stores = createPostgresStores({
          pool: database.pool,
          schema: database.uniqueSchema(),
        });
        expect(await stores.schemaVersion()).toBe(0);
        expect(await stores.migrate()).toEqual({
          from: 0,
          to: SCHEMA_VERSION,
          applied: MIGRATIONS.map((migration) => migration.version),
        });
        expect(await stores.migrate()).toEqual({
          from: SCHEMA_VERSION,
          to: SCHEMA_VERSION,
          applied: [],
        });
        expect(await stores.schemaVersion()).toBe(SCHEMA_VERSION);
      });

      it('applies only the steps a database lacks, in order', async () => {
        const schema = database.uniqueSchema();
        const quoted = `"${schema}"`;
        await migrateSchema(database.pool, schema, quoted, MIGRATIONS.slice(0, 1));
        const next: Migration = {
          version: 2,
          description: 'a test step',
          statements: (target) => [`CREATE TABLE ${target}.extra (id text PRIMARY KEY)`],
        };
        const result = await migrateSchema(database.pool, schema, quoted, [
          { version: 1, description: 'never run again', statements: () => ['SELECT 1/0'] },
          next,
        ]);
        expect(result).toEqual({ from: 1, to: 2, applied: [2] });
        await database.pool.query(`INSERT INTO ${quoted}.extra VALUES ('x')`);
      });

      it('refuses a schema newer than this package, and leaves it untouched', async () => {
        const schema = database.uniqueSchema();
        const stores = createPostgresStores({ pool: database.pool, schema });
        await stores.migrate();
        await database.pool.query(
          `INSERT INTO "${schema}".schema_version (version, description) VALUES (99, 'future')`,
        );
        const error = await rejection(stores.migrate());
        expect(StorageError.isInstance(error)).toBe(true);
        expect(String((error as Error).message)).toMatch(/version 99, newer than/u);
        expect(await stores.schemaVersion()).toBe(99);
      });

      it('rolls a failing step back completely', async () => {
        const schema = database.uniqueSchema();
        const quoted = `"${schema}"`;
        const error = await rejection(
          migrateSchema(database.pool, schema, quoted, [
            {
              version: 1,
              description: 'breaks halfway',
              statements: (target) => [`CREATE TABLE ${target}.half (id text)`, 'SELECT 1/0'],
            },
          ]),
        );
        expect(StorageError.isInstance(error)).toBe(true);
        const { rows } = await database.pool.query('SELECT to_regclass($1) AS table', [
          `${quoted}.half`,
        ]);
        expect(rows[0].table).toBeNull();
      });

      it('says to run migrate() when the tables are missing', async () => {
        const stores = createPostgresStores({
          pool: database.pool,
          schema: database.uniqueSchema(),
        });
        const error = await rejection(stores.history.count(alice));
        expect(StorageError.isInstance(error)).toBe(true);
        expect((error as Error).message).toMatch(/migrate\(\)/u);
      });
    });

    describe('searchKeywords', () => {
      it('finds current cards by any query word, stemmed, best first, within k', async () => {
        const { memory } = await database.stores();
        await memory.add(alice, [
          { content: 'The staging database runs PostgreSQL 16 in Frankfurt.' },
          { content: 'Deployments happen every Tuesday.' },
          { content: 'Databases are backed up nightly; backups are kept for 30 days.' },
          { content: 'The cat is called Miso.', tags: ['pets'] },
        ]);
        const hits = await memory.searchKeywords(alice, 'database backup', 10);
        expect(hits.map((hit) => hit.card.content)).toEqual([
          'Databases are backed up nightly; backups are kept for 30 days.',
          'The staging database runs PostgreSQL 16 in Frankfurt.',
        ]);
        expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
        expect(hits[0]!.card.scope).toEqual(alice);
        expect(await memory.searchKeywords(alice, 'database backup', 1)).toHaveLength(1);
        // Tags are searched too.
        expect((await memory.searchKeywords(alice, 'pet')).map((hit) => hit.card.content)).toEqual([
          'The cat is called Miso.',
        ]);
      });

      it('skips superseded cards and other scopes', async () => {
        const { memory } = await database.stores();
        await memory.add(alice, [{ content: 'I prefer Python for scripts', type: 'preference' }]);
        await memory.add(alice, [{ content: 'I prefer Rust for scripts', type: 'preference' }]);
        await memory.add({ userId: 'bob' }, [{ content: 'Bob writes scripts in Perl.' }]);
        const hits = await memory.searchKeywords(alice, 'scripts');
        expect(hits.map((hit) => hit.card.content)).toEqual(['I prefer Rust for scripts']);
      });

      it('reads operators and quotes in the query as plain words', async () => {
        const { memory } = await database.stores();
        await memory.add(alice, [{ content: "O'Brien's C++ & Rust notes: don't panic!" }]);
        for (const query of ["o'brien", 'rust & | ! <-> :*', 'panic\\', "'''", 'notes:*']) {
          const hits = await memory.searchKeywords(alice, query);
          expect(hits.length, query).toBeLessThanOrEqual(1);
        }
        expect(await memory.searchKeywords(alice, 'rust & | !')).toHaveLength(1);
        expect(await memory.searchKeywords(alice, 'the and of')).toEqual([]);
        expect(await memory.searchKeywords(alice, '   ')).toEqual([]);
        expect(await memory.searchKeywords(alice, 'rust', 0)).toEqual([]);
      });

      it('finds CJK text by n-grams, as core’s BM25 does', async () => {
        const { memory } = await database.stores();
        await memory.add(alice, [
          { content: '机器学习模型的训练需要大量GPU。' },
          { content: '東京の会議は来週の月曜日です。' },
        ]);
        for (const [query, expected] of [
          ['机器学习', '机器学习模型的训练需要大量GPU。'],
          ['gpu', '机器学习模型的训练需要大量GPU。'],
          ['月曜日', '東京の会議は来週の月曜日です。'],
        ] as const) {
          const hits = await memory.searchKeywords(alice, query);
          expect(
            hits.map((hit) => hit.card.content),
            query,
          ).toEqual([expected]);
        }
      });

      it('stores cards whose terms exceed PostgreSQL’s tsvector limits', async () => {
        const { memory } = await database.stores();
        const longWord = 'x'.repeat(3_000);
        const [card] = await memory.add(alice, [
          { content: `${'rust '.repeat(300)}${longWord} ${'学'.repeat(5_000)}` },
        ]);
        expect((await memory.searchKeywords(alice, 'rust')).map((hit) => hit.card.id)).toEqual([
          card!.id,
        ]);
        expect(await memory.searchKeywords(alice, '学学')).toHaveLength(1);
        expect(await memory.searchKeywords(alice, longWord)).toEqual([]);
      });

      it('still finds cards stored before the keyword terms moved to core (schema 1)', async () => {
        const schema = database.uniqueSchema();
        await migrateSchema(database.pool, schema, `"${schema}"`, MIGRATIONS.slice(0, 1));
        // A card as schema 1 stored it: PostgreSQL computed `search` from `search_text`.
        const [card] = await (await database.stores()).memory.add(alice, [
          { content: 'Backups run nightly.' },
        ]);
        await database.pool.query(
          `INSERT INTO "${schema}".memory_scopes (scope_key, revision) VALUES ($1, 1)`,
          [scopeKey(alice)],
        );
        await database.pool.query(
          `INSERT INTO "${schema}".memory_cards (scope_key, id, card, search_text)
           VALUES ($1, $2, $3, $4)`,
          [scopeKey(alice), card!.id, encodeCard(card!), card!.content],
        );
        const stores = createPostgresStores({ pool: database.pool, schema });
        await stores.migrate();
        expect(
          (await stores.memory.searchKeywords(alice, 'backup')).map((hit) => hit.card.id),
        ).toEqual([card!.id]);
        await stores.memory.add(alice, [{ content: 'Backups are kept for 30 days.' }]);
        expect(await stores.memory.searchKeywords(alice, 'backups')).toHaveLength(2);
      });

      it('validates the scope, query and k', async () => {
        const { memory } = await database.stores({ requiredScope: ['userId'] });
        expect(ScopeRequiredError.isInstance(await rejection(memory.searchKeywords({}, 'x')))).toBe(
          true,
        );
        expect(
          InvalidIdError.isInstance(await rejection(memory.searchKeywords({ userId: '..' }, 'x'))),
        ).toBe(true);
        expect(
          InvalidArgumentError.isInstance(
            await rejection(memory.searchKeywords(alice, 42 as unknown as string)),
          ),
        ).toBe(true);
        expect(
          InvalidArgumentError.isInstance(await rejection(memory.searchKeywords(alice, 'x', -1))),
        ).toBe(true);
      });
    });

    it('drops a scope’s conflict keys on remove; a writer cached before it still merges exactly', async () => {
      const schema = database.uniqueSchema();
      const [writer, stale] = [0, 1].map(() =>
        createPostgresStores({ pool: database.pool, schema }),
      ) as [PostgresStores, PostgresStores];
      await writer.migrate();
      const keys = async () => {
        const { rows } = await database.pool.query(
          `SELECT count(*)::integer AS count FROM "${schema}".memory_card_keys WHERE scope_key = $1`,
          [scopeKey(alice)],
        );
        return Number(rows[0].count);
      };
      const [python, backups] = await writer.memory.add(alice, [
        { content: 'I prefer Python for scripts.', type: 'preference' },
        { content: 'Backups run nightly.' },
      ]);
      await stale.memory.list(alice);
      expect(await keys()).toBeGreaterThan(0);
      await writer.memory.remove(alice, [backups!.id]);
      expect(await keys()).toBe(0);
      const [rust] = await writer.memory.add(alice, [
        { content: 'I prefer Rust for scripts.', type: 'preference' },
      ]);
      expect(await keys()).toBeGreaterThan(0);
      // The stale writer still holds Python as current and the removed card: its adds merge
      // against the scope as stored, not as it cached it.
      expect(
        (await stale.memory.add(alice, [{ content: 'I prefer rust for scripts!' }]))[0]!.id,
      ).toBe(rust!.id);
      const [again] = await stale.memory.add(alice, [{ content: 'Backups run nightly.' }]);
      expect(again!.id).not.toBe(backups!.id);
      const listed = await writer.memory.list(alice, { includeSuperseded: true });
      expect(listed.map((card) => [card.content, card.supersededBy])).toEqual([
        ['I prefer Python for scripts.', rust!.id],
        ['I prefer Rust for scripts.', undefined],
        ['Backups run nightly.', undefined],
      ]);
      expect(listed[0]!.id).toBe(python!.id);
    });

    it('stores text PostgreSQL cannot hold in jsonb: NUL characters and lone surrogates', async () => {
      const { history, offload, memory } = await database.stores({ clock: createFakeClock() });
      const text = 'a\u0000b \ud800 c';
      const [stored] = await history.append(alice, [{ role: 'user', content: text }]);
      expect((await history.read(alice))[0]!.message.content).toBe(text);
      expect(stored!.message.content).toBe(text);
      const id = await offload.put(alice, { role: 'user', content: text });
      expect((await offload.get(alice, id)).message.content).toBe(text);
      const [card] = await memory.add(alice, [{ content: `note ${text}` }]);
      expect((await memory.get(alice, card!.id)).content).toBe(`note ${text}`);
    });
  });
}

behaviour('PGlite', () => openPglite());
if (services.postgresUrl) {
  const url = services.postgresUrl;
  behaviour('PostgreSQL', async () => openPostgres(url));

  describe('connectionString', () => {
    it('opens a pool with pg on first use and ends it on close', async () => {
      const database = openPostgres(url);
      const schema = database.uniqueSchema();
      const stores = createPostgresStores({ connectionString: url, schema });
      await stores.migrate();
      await stores.history.append(alice, [{ role: 'user', content: 'hello' }]);
      expect(await stores.history.count(alice)).toBe(1);
      await stores.close();
      await stores.close();
      expect(StorageError.isInstance(await rejection(stores.history.count(alice)))).toBe(true);
      await database.cleanup();
    });
  });

  describe('connection faults', () => {
    let admin: TestDatabase;
    beforeAll(() => {
      admin = openPostgres(url);
    });
    afterAll(async () => {
      await admin?.cleanup();
    });

    /** Stores on a pool of their own, whose connections carry a name the test finds them by. */
    async function namedStores() {
      const schema = admin.uniqueSchema();
      const name = `ctxmem_fault_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
      const connectionString = `${url}${url.includes('?') ? '&' : '?'}application_name=${name}`;
      const stores = createPostgresStores({ connectionString, schema });
      await stores.migrate();
      return { stores, schema, name };
    }

    async function backends(name: string, waitingForLock = false): Promise<number> {
      const { rows } = await admin.pool.query(
        `SELECT count(*)::integer AS count FROM pg_stat_activity
         WHERE application_name = $1 AND ($2::boolean IS FALSE OR wait_event_type = 'Lock')`,
        [name, waitingForLock],
      );
      return Number(rows[0].count);
    }

    /** Terminates every server process of the named pool, as an administrator or a restart does. */
    async function terminate(name: string): Promise<number> {
      const { rows } = await admin.pool.query(
        `SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity WHERE application_name = $1`,
        [name],
      );
      return rows.filter((row: { done: boolean }) => row.done).length;
    }

    it('keeps the process running when the server terminates idle connections, and reconnects', async () => {
      const { stores, name } = await namedStores();
      try {
        await stores.history.append(alice, [{ role: 'user', content: 'before' }]);
        // Several calls at once leave several idle connections in the pool.
        await Promise.all([1, 2, 3].map(() => stores.history.count(alice)));
        const uncaught = await withoutUncaughtErrors(async () => {
          expect(await terminate(name)).toBeGreaterThanOrEqual(1);
          await until(async () => (await backends(name)) === 0, 'the connections to end');
        });
        expect(uncaught).toEqual([]);
        // The pool dropped the dead connections and opens new ones.
        expect(await stores.history.count(alice)).toBe(1);
        await stores.history.append(alice, [{ role: 'user', content: 'after' }]);
        expect((await stores.history.read(alice)).map((entry) => entry.message.content)).toEqual([
          'before',
          'after',
        ]);
      } finally {
        await stores.close();
      }
    });

    it('rejects a call whose connection is terminated with StorageError; the next call succeeds', async () => {
      const { stores, schema, name } = await namedStores();
      // Holds the tables so that both calls below are on the server, waiting, when terminated:
      // a single statement (getState) and a transaction (memory.add).
      const blocker = await admin.pool.connect();
      let errors: unknown[] = [];
      try {
        await stores.history.count(alice);
        await blocker.query('BEGIN');
        await blocker.query(
          `LOCK TABLE "${schema}".working_states, "${schema}".memory_scopes IN ACCESS EXCLUSIVE MODE`,
        );
        const uncaught = await withoutUncaughtErrors(async () => {
          const pending = [
            rejection(stores.history.getState(alice)),
            rejection(stores.memory.add(alice, [{ content: 'A card written twice.' }])),
          ];
          await until(async () => (await backends(name, true)) === 2, 'both calls to wait');
          expect(await terminate(name)).toBe(2);
          errors = await Promise.all(pending);
        });
        expect(uncaught).toEqual([]);
      } finally {
        await blocker.query('ROLLBACK').catch(() => undefined);
        blocker.release();
      }
      expect(errors).toHaveLength(2);
      for (const error of errors) {
        expect(StorageError.isInstance(error), String(error)).toBe(true);
        expect((error as Error).message).toMatch(/57P01|terminat/u);
        expect((error as Error).message).toMatch(/connection to PostgreSQL was lost/u);
      }
      try {
        expect(await stores.history.getState(alice)).toBeUndefined();
        await stores.memory.add(alice, [{ content: 'A card written twice.' }]);
        expect((await stores.memory.list(alice)).map((card) => card.content)).toEqual([
          'A card written twice.',
        ]);
      } finally {
        await stores.close();
      }
    });

    // A server of its own, since stopping the shared one would fail the other test files.
    it.skipIf(!postgresBinaries())(
      'fails calls with StorageError while the server is down, and works again once it is back',
      async () => {
        const dedicated = await startServices();
        try {
          if (!dedicated.postgresUrl) throw new Error(dedicated.problems.join('; '));
          const dataDirectory = await showDataDirectory(dedicated.postgresUrl);
          const stores = createPostgresStores({
            connectionString: dedicated.postgresUrl,
            schema: 'ctxmem_restart',
          });
          try {
            await stores.migrate();
            await stores.history.append(alice, [{ role: 'user', content: 'before' }]);
            let down: unknown;
            const uncaught = await withoutUncaughtErrors(async () => {
              pgCtl(dataDirectory, ['-m', 'fast', '-w', 'stop']);
              down = await rejection(stores.history.count(alice));
              // pg_ctl restart starts a stopped server again with the options it last ran with
              // (its log goes to a file: the server must not hold pg_ctl's output open).
              pgCtl(dataDirectory, ['-l', `${dataDirectory}/server.log`, '-w', 'restart']);
            });
            expect(uncaught).toEqual([]);
            expect(StorageError.isInstance(down), String(down)).toBe(true);
            expect((down as Error).message).toMatch(/connection to PostgreSQL was lost/u);
            expect(await stores.history.count(alice)).toBe(1);
            await stores.history.append(alice, [{ role: 'user', content: 'after' }]);
            expect(
              (await stores.history.read(alice)).map((entry) => entry.message.content),
            ).toEqual(['before', 'after']);
          } finally {
            await stores.close();
          }
        } finally {
          await dedicated.stop();
        }
      },
    );
  });
} else {
  const reason = missingServerMessage('PostgreSQL', services.problems);
  describe('PostgreSQL', () => {
    it.skip(reason, () => {});
  });
}

describe('configuration errors', () => {
  it('names the missing pg package', async () => {
    const error = await rejection(
      loadPg(() => Promise.reject(new Error("Cannot find package 'pg'"))),
    );
    expect(StorageError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/"pg" package.*npm install pg/u);
  });

  it('rejects a missing connection, a bad pool and an unsafe schema name', () => {
    expect(() => createPostgresStores({})).toThrow(InvalidArgumentError);
    expect(() => createPostgresStores({ pool: {} as never })).toThrow(/pg Pool/u);
    for (const schema of ['x"; DROP TABLE y; --', '1abc', '', 'a'.repeat(64)]) {
      expect(() => createPostgresStores({ connectionString: 'postgres://x', schema })).toThrow(
        InvalidArgumentError,
      );
    }
    expect(() =>
      createPostgresStores({
        connectionString: 'postgres://x',
        requiredScope: ['tenant' as never],
      }),
    ).toThrow(InvalidArgumentError);
  });
});

/**
 * The PostgreSQL stores shared by several processes, as several instances of an application share
 * them (core's `testSharedStoresProcesses`), and concurrent migrations, which apply each step once.
 */
import { testSharedStoresProcesses } from '@ctxmem/core/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledFixture } from '../../../test/setup/fixture-bundle.js';
import {
  missingServerMessage,
  stopTestServices,
  testServices,
} from '../../../test/setup/services.js';
import { linesAfter, releaseTogether, startWriter } from '../../../test/setup/writer-process.js';
import { createPostgresStores } from './create-postgres-stores.js';
import { openPostgres, type TestDatabase } from './databases.test-support.js';
import { MIGRATIONS } from './migrations.js';

const fixture = await bundledFixture(new URL('./writer.test-support.ts', import.meta.url));
const services = await testServices();
afterAll(stopTestServices);

if (!services.postgresUrl) {
  const reason = missingServerMessage('PostgreSQL', services.problems);
  describe('PostgreSQL stores shared by processes', () => {
    it.skip(reason, () => {});
  });
} else {
  const url = services.postgresUrl;
  let database: TestDatabase;
  beforeAll(() => {
    database = openPostgres(url);
  });
  afterAll(async () => {
    await database.cleanup();
  });
  testSharedStoresProcesses('PostgreSQL stores', {
    namespace: async () => {
      const schema = database.uniqueSchema();
      await createPostgresStores({ pool: database.pool, schema }).migrate();
      return schema;
    },
    open: (schema) => createPostgresStores({ pool: database.pool, schema }),
    start: (schema, job) => startWriter(fixture, { ...job, url, schema }),
    releases: true,
  });

  it('applies each migration once when several processes migrate at the same moment', async () => {
    const schema = database.uniqueSchema();
    const migrators = ['a', 'b', 'c'].map(() =>
      startWriter(fixture, { mode: 'migrate', url, schema }),
    );
    await releaseTogether(migrators);
    await Promise.all(migrators.map((migrator) => migrator.waitFor('done')));
    const applied = migrators.flatMap((migrator) =>
      linesAfter(migrator, 'migrated').map((line) => JSON.parse(line) as number[]),
    );
    const versions = MIGRATIONS.map((migration) => migration.version);
    expect(applied.filter((steps) => steps.length > 0)).toEqual([versions]);
    const { rows } = await database.pool.query(
      `SELECT version FROM "${schema}".schema_version ORDER BY version`,
    );
    expect(rows.map((row) => row.version)).toEqual(versions);
  }, 60_000);
}

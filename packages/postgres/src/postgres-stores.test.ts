import {
  testHistoryStore,
  testKeywordSearch,
  testLeaseStore,
  testMemoryStore,
  testOffloadStore,
} from '@ctxmem/core/test';
import { afterAll, beforeAll, describe, it } from 'vitest';
import {
  missingServerMessage,
  stopTestServices,
  testServices,
} from '../../../test/setup/services.js';
import { createPostgresStores } from './create-postgres-stores.js';
import { openPglite, openPostgres, type TestDatabase } from './databases.test-support.js';

const services = await testServices();
afterAll(stopTestServices);

/** The conformance suites core's file store runs, against one database. */
function conformance(name: string, open: () => Promise<TestDatabase>) {
  describe(name, () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await open();
    }, 60_000);
    afterAll(async () => {
      await database?.cleanup();
    });
    const stores = (options: Parameters<TestDatabase['stores']>[0]) => database.stores(options);
    testHistoryStore(name, async (options) => (await stores(options)).history);
    testOffloadStore(name, async (options) => (await stores(options)).offload);
    testMemoryStore(name, async (options) => (await stores(options)).memory);
    testKeywordSearch(name, async (options) => {
      const { memory } = await stores(options);
      return {
        store: memory,
        searchKeywords: (scope, query, k) => memory.searchKeywords(scope, query, k),
      };
    });
    testLeaseStore(name, async () => {
      // Two instances: two sets of stores on one schema.
      const schema = database.uniqueSchema();
      const first = createPostgresStores({ pool: database.pool, schema });
      await first.migrate();
      return [first.leases, createPostgresStores({ pool: database.pool, schema }).leases] as const;
    });
  });
}

conformance('PGlite', () => openPglite());

if (services.postgresUrl) {
  const url = services.postgresUrl;
  conformance('PostgreSQL', async () => openPostgres(url));
} else {
  const reason = missingServerMessage('PostgreSQL', services.problems);
  describe('PostgreSQL', () => {
    it.skip(reason, () => {});
  });
}

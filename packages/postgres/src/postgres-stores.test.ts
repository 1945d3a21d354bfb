import { testSharedStores } from '@ctxmem/core/test';
import { afterAll, beforeAll, describe, it } from 'vitest';
import {
  missingServerMessage,
  stopTestServices,
  testServices,
} from '../../../test/setup/services.js';
import { openPglite, openPostgres, type TestDatabase } from './databases.test-support.js';

const services = await testServices();
afterAll(stopTestServices);

/** The conformance suites core's file store runs, and those across instances, on one database. */
function conformance(name: string, open: () => Promise<TestDatabase>) {
  describe(name, () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await open();
    }, 60_000);
    afterAll(async () => {
      await database?.cleanup();
    });
    testSharedStores(name, {
      stores: (options) => database.stores(options),
      instances: (count) => database.instances(count),
      searchKeywords: ({ memory }) => memory.searchKeywords.bind(memory),
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

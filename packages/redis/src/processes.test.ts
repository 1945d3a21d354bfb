/**
 * The Redis stores shared by several processes, as several instances of an application share
 * them (core's `testSharedStoresProcesses`).
 */
import { testSharedStoresProcesses } from '@ctxmem/core/test';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { bundledFixture } from '../../../test/setup/fixture-bundle.js';
import {
  missingServerMessage,
  stopTestServices,
  testServices,
} from '../../../test/setup/services.js';
import { startWriter } from '../../../test/setup/writer-process.js';
import { createRedisStores } from './create-redis-stores.js';
import { openRedis, type TestRedis } from './redis.test-support.js';

const fixture = await bundledFixture(new URL('./writer.test-support.ts', import.meta.url));
const services = await testServices();
afterAll(stopTestServices);

if (!services.redisUrl) {
  const reason = missingServerMessage('Redis', services.problems);
  describe('Redis stores shared by processes', () => {
    it.skip(reason, () => {});
  });
} else {
  const url = services.redisUrl;
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await openRedis(url);
  });
  afterAll(async () => {
    await redis.cleanup();
  });
  testSharedStoresProcesses('Redis stores', {
    namespace: async () => redis.uniquePrefix(),
    open: (prefix) => createRedisStores({ client: redis.client, prefix }),
    start: (prefix, job) => startWriter(fixture, { ...job, url, prefix }),
    releases: true,
  });
}

import { testSharedStores } from '@ctxmem/core/test';
import { afterAll, beforeAll, describe, it } from 'vitest';
import {
  missingServerMessage,
  stopTestServices,
  testServices,
} from '../../../test/setup/services.js';
import { openRedis, type TestRedis } from './redis.test-support.js';

const services = await testServices();
afterAll(stopTestServices);

if (services.redisUrl) {
  const url = services.redisUrl;
  describe('Redis', () => {
    let redis: TestRedis;
    beforeAll(async () => {
      redis = await openRedis(url);
    });
    afterAll(async () => {
      await redis?.cleanup();
    });
    // Redis has no keyword search of its own: core's BM25 over `list` must find what it finds
    // over the file store.
    testSharedStores('Redis', {
      stores: async (options) => redis.stores(options),
      instances: async (count) => redis.instances(count),
    });
  });
} else {
  const reason = missingServerMessage('Redis', services.problems);
  describe('Redis', () => {
    it.skip(reason, () => {});
  });
}

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
import { createRedisStores } from './create-redis-stores.js';
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
    testHistoryStore('Redis', (options) => redis.stores(options).history);
    testOffloadStore('Redis', (options) => redis.stores(options).offload);
    testMemoryStore('Redis', (options) => redis.stores(options).memory);
    // Redis has no keyword search of its own: core's BM25 over `list` must find what it finds
    // over the file store.
    testKeywordSearch('Redis', (options) => ({ store: redis.stores(options).memory }));
    testLeaseStore('Redis', async () => {
      // Two instances: two sets of stores under one prefix.
      const prefix = redis.uniquePrefix();
      return [
        createRedisStores({ client: redis.client, prefix }).leases,
        createRedisStores({ client: redis.client, prefix }).leases,
      ] as const;
    });
  });
} else {
  const reason = missingServerMessage('Redis', services.problems);
  describe('Redis', () => {
    it.skip(reason, () => {});
  });
}

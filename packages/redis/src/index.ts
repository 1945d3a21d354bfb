export type { Lease, LeaseStore } from '@ctxmem/core/driver-kit';
export {
  loadRedis,
  type RedisCommandClient,
  type RedisConnectionOptions,
} from './connection.js';
export type { RedisTtl } from './context.js';
export {
  createRedisStores,
  type RedisStores,
  type RedisStoresOptions,
} from './create-redis-stores.js';

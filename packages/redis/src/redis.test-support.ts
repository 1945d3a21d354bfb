/**
 * A Redis server for the tests. Every store a test creates gets its own key prefix, so tests never
 * see each other's keys; `cleanup` deletes them and closes the client.
 */
import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import type { RedisCommandClient } from './connection.js';
import {
  createRedisStores,
  type RedisStores,
  type RedisStoresOptions,
} from './create-redis-stores.js';

export interface TestRedis {
  client: RedisCommandClient;
  /** Stores under a new prefix. */
  stores(options?: Omit<RedisStoresOptions, 'client' | 'url' | 'prefix'>): RedisStores;
  /** `count` sets of stores under one new prefix, as `count` application instances. */
  instances(count: number): RedisStores[];
  /** A prefix no other test uses. */
  uniquePrefix(): string;
  /** Every key under the prefixes made so far. */
  keys(): Promise<string[]>;
  cleanup(): Promise<void>;
}

export async function openRedis(url: string): Promise<TestRedis> {
  const client = createClient({ url });
  client.on('error', () => {});
  await client.connect();
  const prefixes: string[] = [];
  const uniquePrefix = () => {
    const prefix = `ctxmem-test-${randomUUID().slice(0, 12)}`;
    prefixes.push(prefix);
    return prefix;
  };
  const keys = async () => {
    const found: string[] = [];
    for (const prefix of prefixes) {
      let cursor = '0';
      do {
        const [next, batch] = (await client.sendCommand([
          'SCAN',
          cursor,
          'MATCH',
          `${prefix}:*`,
          'COUNT',
          '1000',
        ])) as [string, string[]];
        cursor = String(next);
        found.push(...batch);
      } while (cursor !== '0');
    }
    return found;
  };
  return {
    client,
    uniquePrefix,
    keys,
    stores: (options = {}) => createRedisStores({ ...options, client, prefix: uniquePrefix() }),
    instances(count) {
      const prefix = uniquePrefix();
      return Array.from({ length: count }, () => createRedisStores({ client, prefix }));
    },
    async cleanup() {
      const found = await keys();
      for (let start = 0; start < found.length; start += 500) {
        await client.sendCommand(['DEL', ...found.slice(start, start + 500)]);
      }
      await client.close();
    },
  };
}

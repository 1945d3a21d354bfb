/**
 * What the Redis stores do beyond the conformance suites: key layout, expiry, optimistic card
 * merges between clients, connection handling and error messages.
 */
import { InvalidArgumentError, StorageError } from '@ctxmem/core';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  missingServerMessage,
  stopTestServices,
  testServices,
} from '../../../test/setup/services.js';
import { loadRedis } from './connection.js';
import { createRedisStores } from './create-redis-stores.js';
import { openRedis, type TestRedis } from './redis.test-support.js';

const services = await testServices();
afterAll(stopTestServices);

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('Expected the promise to reject.');
}

const alice = { userId: 'alice', sessionId: 's1' };
const message = { role: 'user' as const, content: 'hello' };

if (services.redisUrl) {
  const url = services.redisUrl;
  describe('Redis stores', () => {
    let redis: TestRedis;
    beforeAll(async () => {
      redis = await openRedis(url);
    });
    afterAll(async () => {
      await redis?.cleanup();
    });

    async function ttlOf(key: string): Promise<number> {
      return Number(await redis.client.sendCommand(['TTL', key]));
    }

    it('keeps every key of a scope under the prefix and one hash tag', async () => {
      const prefix = redis.uniquePrefix();
      const stores = createRedisStores({ client: redis.client, prefix });
      await stores.history.append(alice, [message]);
      await stores.history.setState(alice, { summarizedCount: 0, messages: [], cycle: 0 }, 0);
      const id = await stores.offload.put(alice, message);
      await stores.memory.add(alice, [{ content: 'A card.' }]);
      const keys = (await redis.keys()).filter((key) => key.startsWith(`${prefix}:`)).sort();
      const tag = `${prefix}:{user:alice|session:s1}`;
      expect(keys).toEqual(
        [
          `${tag}:cards`,
          `${tag}:cards-meta`,
          `${tag}:history`,
          `${tag}:offload:${id}`,
          `${tag}:state`,
          `${tag}:turns`,
        ].sort(),
      );
    });

    it('sets no expiry by default, and the configured one on every write', async () => {
      const plain = redis.stores();
      await plain.history.append(alice, [message]);
      const plainKeys = await redis.keys();
      for (const key of plainKeys) expect(await ttlOf(key), key).toBe(-1);

      const prefix = redis.uniquePrefix();
      const expiring = createRedisStores({
        client: redis.client,
        prefix,
        ttlSeconds: { history: 100, offload: 200, memory: 300 },
      });
      await expiring.history.append(alice, [message]);
      await expiring.history.setState(alice, { summarizedCount: 0, messages: [], cycle: 0 }, 0);
      const id = await expiring.offload.put(alice, message);
      await expiring.memory.add(alice, [{ content: 'A card.' }]);
      const tag = `${prefix}:{user:alice|session:s1}`;
      for (const suffix of ['history', 'turns', 'state']) {
        expect(await ttlOf(`${tag}:${suffix}`), suffix).toBeGreaterThan(90);
        expect(await ttlOf(`${tag}:${suffix}`), suffix).toBeLessThanOrEqual(100);
      }
      expect(await ttlOf(`${tag}:offload:${id}`)).toBeGreaterThan(190);
      expect(await ttlOf(`${tag}:cards`)).toBeGreaterThan(290);
      expect(await ttlOf(`${tag}:cards-meta`)).toBeGreaterThan(290);

      // One number applies to everything.
      const all = createRedisStores({
        client: redis.client,
        prefix: redis.uniquePrefix(),
        ttlSeconds: 50,
      });
      const other = await all.offload.put(alice, message);
      expect(other).toBe(id);
    });

    it('merges cards from clients racing on one scope without losing any', async () => {
      const prefix = redis.uniquePrefix();
      const clients = await Promise.all(
        [0, 1, 2].map(async () => {
          const client = createClient({ url });
          client.on('error', () => {});
          await client.connect();
          return client;
        }),
      );
      try {
        const stores = clients.map((client) => createRedisStores({ client, prefix }));
        const perClient = 15;
        await Promise.all(
          stores.flatMap((store, writer) =>
            Array.from({ length: perClient }, (_, step) =>
              store.memory.add(alice, [
                {
                  content: `Writer ${writer} remembers item ${step * 7919 + writer}`,
                  type: 'todo',
                },
              ]),
            ),
          ),
        );
        const listed = await stores[0]!.memory.list(alice);
        expect(listed).toHaveLength(3 * perClient);
        expect(new Set(listed.map((card) => card.content)).size).toBe(3 * perClient);
        // The same fact from every client at once is stored once.
        const same = await Promise.all(
          stores.map((store) => store.memory.add(alice, [{ content: 'One shared fact.' }])),
        );
        expect(new Set(same.map(([card]) => card!.id)).size).toBe(1);
      } finally {
        await Promise.all(clients.map((client) => client.close()));
      }
    });

    const twoInstances = async () => {
      const prefix = redis.uniquePrefix();
      return [
        createRedisStores({ client: redis.client, prefix }).memory,
        createRedisStores({ client: redis.client, prefix }).memory,
      ] as const;
    };

    it('sees what other instances wrote although it caches parsed cards', async () => {
      const [first, second] = await twoInstances();
      const [kept] = await first.add(alice, [{ content: 'First note from instance one.' }]);
      expect(await first.list(alice)).toHaveLength(1);
      await second.add(alice, [{ content: 'Second note from instance two.' }]);
      expect((await first.list(alice)).map((card) => card.content)).toEqual([
        'First note from instance one.',
        'Second note from instance two.',
      ]);
      await second.remove(alice, [kept!.id]);
      expect((await first.list(alice)).map((card) => card.content)).toEqual([
        'Second note from instance two.',
      ]);
      await first.add(alice, [{ content: 'Third note from instance one.' }]);
      await first.add(alice, [{ content: 'Second note from instance two!' }]);
      expect((await second.list(alice)).map((card) => card.content)).toEqual([
        'Second note from instance two.',
        'Third note from instance one.',
      ]);
      // Cached cards are never handed out: changing a listed card changes nothing.
      const [listed] = await first.list(alice);
      listed!.tags.push('mutated');
      expect((await first.list(alice))[0]!.tags).toEqual([]);
    });

    it('keeps indexes gap-free from 0 when clears race with appends', async () => {
      const { history } = redis.stores();
      const turn = [
        { role: 'user' as const, content: 'question' },
        { role: 'assistant' as const, content: 'answer' },
      ];
      await Promise.all(
        Array.from({ length: 30 }, (_, step) =>
          step % 5 === 4 ? history.clear(alice) : history.append(alice, turn),
        ),
      );
      const all = await history.read(alice);
      expect(all.map((entry) => entry.index)).toEqual(all.map((_, index) => index));
      expect(all.map((entry) => entry.turn)).toEqual(
        all.map((_, index) => 1 + Math.floor(index / 2)),
      );
      expect(await history.count(alice)).toBe(all.length);
      expect((await history.append(alice, turn))[0]!.index).toBe(all.length);
    });

    it('loads its scripts again after the server forgot them', async () => {
      const stores = redis.stores();
      await stores.history.append(alice, [message]);
      await redis.client.sendCommand(['SCRIPT', 'FLUSH']);
      expect((await stores.history.append(alice, [message]))[0]!.index).toBe(1);
    });

    it('opens a client from a URL on first use and closes it', async () => {
      const prefix = redis.uniquePrefix();
      const stores = createRedisStores({ url, prefix });
      await stores.history.append(alice, [message]);
      expect(await stores.history.count(alice)).toBe(1);
      await stores.close();
      await stores.close();
      expect(StorageError.isInstance(await rejection(stores.history.count(alice)))).toBe(true);
    });
  });
} else {
  const reason = missingServerMessage('Redis', services.problems);
  describe('Redis stores', () => {
    it.skip(reason, () => {});
  });
}

describe('configuration errors', () => {
  it('names the missing redis package', async () => {
    const error = await rejection(
      loadRedis(() => Promise.reject(new Error("Cannot find package 'redis'"))),
    );
    expect(StorageError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/"redis" package.*npm install redis/u);
  });

  it('says which server could not be reached', async () => {
    const stores = createRedisStores({ url: 'redis://127.0.0.1:1' });
    const error = await rejection(stores.history.count(alice));
    expect(StorageError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /Redis could not connect to redis:\/\/127\.0\.0\.1:1/u,
    );
  });

  it('rejects a missing connection, a bad client, prefix or TTL', () => {
    expect(() => createRedisStores({})).toThrow(InvalidArgumentError);
    expect(() => createRedisStores({ client: {} as never })).toThrow(/sendCommand/u);
    for (const prefix of ['', 'a{b', 'a}b', 'has space']) {
      expect(() => createRedisStores({ url: 'redis://x', prefix }), prefix).toThrow(
        InvalidArgumentError,
      );
    }
    for (const ttlSeconds of [0, -1, 1.5, Number.NaN, { offload: 0 }, null]) {
      expect(
        () => createRedisStores({ url: 'redis://x', ttlSeconds: ttlSeconds as never }),
        JSON.stringify(ttlSeconds),
      ).toThrow(InvalidArgumentError);
    }
  });
});

/**
 * What the Redis stores do beyond the conformance suites: key layout, expiry, optimistic card
 * merges between clients, connection handling and error messages.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConflictError, InvalidArgumentError, type Scope, StorageError } from '@ctxmem/core';
import { rejection, until, withoutUncaughtErrors } from '@ctxmem/core/test';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  missingServerMessage,
  reachable,
  stopTestServices,
  testServices,
} from '../../../test/setup/services.js';
import { loadRedis } from './connection.js';
import { createRedisStores } from './create-redis-stores.js';
import { openRedis, type TestRedis } from './redis.test-support.js';

const services = await testServices();
afterAll(stopTestServices);

const alice = { userId: 'alice', sessionId: 's1' };
const message = { role: 'user' as const, content: 'hello' };
const emptyState = (note = 'state') => ({
  summarizedCount: 0,
  messages: [{ role: 'assistant' as const, content: note }],
  cycle: 0,
});

function redisServerBinary(): string | undefined {
  for (const folder of (process.env.PATH ?? '').split(':')) {
    if (folder && existsSync(join(folder, 'redis-server'))) return join(folder, 'redis-server');
  }
  return undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * A Redis server of its own on a fixed port, for the fault tests: killing connections, pausing
 * or restarting the shared server would fail the other test files.
 */
async function dedicatedRedis() {
  const binary = redisServerBinary()!;
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  const server = {
    url,
    async start() {
      child = spawn(
        binary,
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--save',
          '',
          '--appendonly',
          'no',
          // For DEBUG RESTART, which Redis 7 refuses by default.
          '--enable-debug-command',
          'yes',
        ],
        { stdio: 'ignore' },
      );
      await until(() => reachable(url, 300), 'redis-server to start');
    },
    async stop() {
      const running = child;
      child = undefined;
      if (!running || running.exitCode !== null) return;
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill('SIGKILL');
      await exited;
    },
  };
  await server.start();
  return server;
}

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
          `${tag}:cards-changes`,
          `${tag}:cards-keys`,
          `${tag}:cards-meta`,
          `${tag}:cards-order`,
          `${tag}:history`,
          `${tag}:offload:${id}`,
          `${tag}:state`,
          `${tag}:turns`,
        ].sort(),
      );
    });

    it('drops a scope’s conflict keys on remove; a client cached before it still merges exactly', async () => {
      const prefix = redis.uniquePrefix();
      const [writer, stale] = [0, 1].map(() => createRedisStores({ client: redis.client, prefix }));
      const conflictKeys = async () =>
        Number(
          await redis.client.sendCommand(['HLEN', `${prefix}:{user:alice|session:s1}:cards-keys`]),
        );
      const [, backups] = await writer!.memory.add(alice, [
        { content: 'I prefer Python for scripts.', type: 'preference' },
        { content: 'Backups run nightly.' },
      ]);
      await stale!.memory.list(alice);
      expect(await conflictKeys()).toBeGreaterThan(0);
      await writer!.memory.remove(alice, [backups!.id]);
      expect(await conflictKeys()).toBe(0);
      const [rust] = await writer!.memory.add(alice, [
        { content: 'I prefer Rust for scripts.', type: 'preference' },
      ]);
      expect(await conflictKeys()).toBeGreaterThan(0);
      expect(
        (await stale!.memory.add(alice, [{ content: 'I prefer rust for scripts!' }]))[0]!.id,
      ).toBe(rust!.id);
      const listed = await writer!.memory.list(alice, { includeSuperseded: true });
      expect(listed.map((card) => [card.content, card.supersededBy])).toEqual([
        ['I prefer Python for scripts.', rust!.id],
        ['I prefer Rust for scripts.', undefined],
      ]);
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
      for (const suffix of ['cards-meta', 'cards-order', 'cards-changes']) {
        expect(await ttlOf(`${tag}:${suffix}`), suffix).toBeGreaterThan(290);
      }

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

    it('loads its scripts again after the server forgot them', async () => {
      const stores = redis.stores();
      await stores.history.append(alice, [message]);
      await redis.client.sendCommand(['SCRIPT', 'FLUSH']);
      expect((await stores.history.append(alice, [message]))[0]!.index).toBe(1);
    });

    it('keeps an active session: every read and write sets the TTL again on all its keys', async () => {
      const prefix = redis.uniquePrefix();
      const { history } = createRedisStores({
        client: redis.client,
        prefix,
        ttlSeconds: { history: 1 },
      });
      // Each phase uses a session of its own in one way only, for longer than the TTL; the
      // phases run at the same time, so the test waits for the TTL once, not once per phase.
      const phases: Array<[string, (session: Scope) => Promise<unknown>]> = [
        ['getState', (session) => history.getState(session)],
        ['append', (session) => history.append(session, [message])],
        ['read', (session) => history.read(session, { from: 0, to: 1 })],
        ['readTurns', (session) => history.readTurns(session, [1])],
        ['count', (session) => history.count(session)],
        [
          'setState that conflicts',
          (session) => rejection(history.setState(session, emptyState(), 0)),
        ],
      ];
      const sessions = phases.map(([name]) => ({
        name,
        scope: { userId: 'alice', sessionId: `ttl-${name.replaceAll(' ', '-')}` },
      }));
      const keysOf = (session: Scope) =>
        ['history', 'turns', 'state'].map(
          (suffix) => `${prefix}:{user:${session.userId}|session:${session.sessionId}}:${suffix}`,
        );
      await Promise.all(
        phases.map(async ([name, use], index) => {
          const session = sessions[index]!.scope;
          await history.append(session, [message]);
          expect(await history.setState(session, emptyState('kept'), 0), name).toBe(1);
          const end = Date.now() + 1200;
          while (Date.now() < end) {
            await use(session);
            await sleep(100);
          }
          for (const key of keysOf(session)) {
            const ttl = Number(await redis.client.sendCommand(['PTTL', key]));
            expect(ttl, `${key} after ${name}`).toBeGreaterThan(0);
            expect(ttl, `${key} after ${name}`).toBeLessThanOrEqual(1000);
          }
          const state = await history.getState(session);
          expect(state?.version, name).toBe(1);
          expect(state?.messages[0]?.content, name).toBe('kept');
        }),
      );
      // Left idle, each whole session expires together; it starts again at version 0.
      await sleep(1300);
      for (const { name, scope: session } of sessions) {
        expect(await redis.client.sendCommand(['EXISTS', ...keysOf(session)]), name).toBe(0);
        expect(await history.getState(session), name).toBeUndefined();
        expect(await history.count(session), name).toBe(0);
        expect(await history.setState(session, emptyState('new'), 0), name).toBe(1);
      }
    }, 30_000);

    it('keeps an offloaded payload that is read or offloaded again past its TTL', async () => {
      const prefix = redis.uniquePrefix();
      const { offload } = createRedisStores({
        client: redis.client,
        prefix,
        ttlSeconds: { offload: 1 },
      });
      // Each use on a session of its own, at the same time: one wait for the TTL, not two.
      const uses: Array<[string, (session: Scope, id: string) => Promise<unknown>]> = [
        ['get', (session, id) => offload.get(session, id)],
        ['put again', (session) => offload.put(session, message)],
      ];
      const stored = await Promise.all(
        uses.map(async ([name, use]) => {
          const session = { userId: 'alice', sessionId: `offload-${name.replace(' ', '-')}` };
          const id = await offload.put(session, message);
          const { createdAt } = await offload.get(session, id);
          const end = Date.now() + 1200;
          while (Date.now() < end) {
            await use(session, id);
            await sleep(100);
          }
          expect((await offload.get(session, id)).createdAt, name).toBe(createdAt);
          return { session, id };
        }),
      );
      await sleep(1300);
      for (const { session, id } of stored) {
        expect(
          await redis.client.sendCommand([
            'EXISTS',
            `${prefix}:{user:${session.userId}|session:${session.sessionId}}:offload:${id}`,
          ]),
        ).toBe(0);
      }
    }, 30_000);

    it('lets an instance that lost a conflict re-read and store again', async () => {
      const prefix = redis.uniquePrefix();
      const [first, second] = [0, 1].map(
        () => createRedisStores({ client: redis.client, prefix, ttlSeconds: 1 }).history,
      ) as [
        ReturnType<typeof createRedisStores>['history'],
        ReturnType<typeof createRedisStores>['history'],
      ];
      expect(await first.setState(alice, emptyState('first'), 0)).toBe(1);
      const lost = await rejection(second.setState(alice, emptyState('second'), 0));
      expect(ConflictError.isInstance(lost)).toBe(true);
      expect((lost as ConflictError).actualVersion).toBe(1);
      // Re-read, then retry at the version read.
      const current = await second.getState(alice);
      expect(current?.version).toBe(1);
      expect(await second.setState(alice, emptyState('second'), current!.version)).toBe(2);
      const stale = await rejection(first.setState(alice, emptyState('first again'), 1));
      expect((stale as ConflictError).actualVersion).toBe(2);
      const again = await first.getState(alice);
      expect(again?.messages[0]?.content).toBe('second');
      expect(await first.setState(alice, emptyState('first again'), again!.version)).toBe(3);
      // Conflicts past the TTL keep the session alive for the retry.
      const end = Date.now() + 1500;
      while (Date.now() < end) {
        expect(ConflictError.isInstance(await rejection(second.setState(alice, emptyState(), 2))));
        await sleep(100);
      }
      const last = await second.getState(alice);
      expect(last?.version).toBe(3);
      expect(await second.setState(alice, emptyState('second again'), 3)).toBe(4);
      // Once the session expired, a stale version conflicts with 0, and re-reading says so.
      await sleep(1300);
      const gone = await rejection(first.setState(alice, emptyState(), 4));
      expect((gone as ConflictError).actualVersion).toBe(0);
      expect(await first.getState(alice)).toBeUndefined();
      expect(await first.setState(alice, emptyState('fresh'), 0)).toBe(1);
    }, 30_000);

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

describe.skipIf(!redisServerBinary())('Redis connection faults (a server of their own)', () => {
  let server: Awaited<ReturnType<typeof dedicatedRedis>>;
  let admin: ReturnType<typeof createClient>;
  beforeAll(async () => {
    server = await dedicatedRedis();
    admin = createClient({ url: server.url });
    admin.on('error', () => {});
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.close().catch(() => undefined);
    await server?.stop();
  });

  /**
   * Kills the connection of a call in flight: the server holds the call (a write: `CLIENT PAUSE
   * WRITE` holds writes and scripts only, so the admin connection can still kill), then kills it.
   */
  async function killDuringCall(call: () => Promise<unknown>): Promise<unknown> {
    await admin.sendCommand(['CLIENT', 'PAUSE', '10000', 'WRITE']);
    try {
      const pending = rejection(call());
      await sleep(200);
      // Every connection but the admin's: this server serves this test file alone.
      await admin.sendCommand(['CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes']);
      return await pending;
    } finally {
      await admin.sendCommand(['CLIENT', 'UNPAUSE']);
    }
  }

  async function eventuallySucceeds<Result>(call: () => Promise<Result>): Promise<Result> {
    let result: Result | undefined;
    await until(async () => {
      try {
        result = await call();
        return true;
      } catch (error) {
        expect(StorageError.isInstance(error), String(error)).toBe(true);
        return false;
      }
    }, 'a call to succeed again');
    return result as Result;
  }

  it('keeps the process running when the connection drops; the call rejects with StorageError', async () => {
    const stores = createRedisStores({ url: server.url, prefix: 'drop' });
    try {
      await stores.history.append(alice, [message]);
      let error: unknown;
      const uncaught = await withoutUncaughtErrors(async () => {
        error = await killDuringCall(() => stores.history.append(alice, [message]));
      });
      expect(uncaught).toEqual([]);
      expect(StorageError.isInstance(error), String(error)).toBe(true);
      expect((error as Error).message).toMatch(/connection to Redis was lost/u);
      // The client reconnects; the killed append never ran.
      expect(await eventuallySucceeds(() => stores.history.count(alice))).toBe(1);
      expect((await stores.history.append(alice, [message]))[0]!.index).toBe(1);
    } finally {
      await stores.close();
    }
  });

  it('guards a given client that has no error listener', async () => {
    const client = createClient({ url: server.url });
    await client.connect();
    try {
      const stores = createRedisStores({ client, prefix: 'given' });
      await stores.history.append(alice, [message]);
      let error: unknown;
      const uncaught = await withoutUncaughtErrors(async () => {
        error = await killDuringCall(() => stores.history.append(alice, [message]));
      });
      expect(uncaught).toEqual([]);
      expect(StorageError.isInstance(error), String(error)).toBe(true);
      expect(await eventuallySucceeds(() => stores.history.count(alice))).toBe(1);
    } finally {
      await client.close().catch(() => undefined);
    }
  });

  it('fails calls at once while the server is down, and works again after it restarts', async () => {
    const stores = createRedisStores({ url: server.url, prefix: 'restart' });
    try {
      await stores.history.append(alice, [message]);
      let down: unknown;
      let waited = 0;
      const uncaught = await withoutUncaughtErrors(async () => {
        await server.stop();
        await sleep(100);
        const started = Date.now();
        down = await rejection(stores.history.count(alice));
        waited = Date.now() - started;
        await server.start();
      });
      expect(uncaught).toEqual([]);
      expect(StorageError.isInstance(down), String(down)).toBe(true);
      expect((down as Error).message).toMatch(/connection to Redis was lost/u);
      // Rejected, not queued until the server comes back.
      expect(waited).toBeLessThan(1000);
      // The restarted server kept nothing (no persistence here); the stores work again.
      expect(await eventuallySucceeds(() => stores.history.count(alice))).toBe(0);
      expect((await stores.history.append(alice, [message]))[0]!.index).toBe(0);
    } finally {
      await stores.close();
    }
    // The admin connection reconnects too, for the next tests.
    await eventuallySucceeds(() => admin.sendCommand(['PING']));
  });

  it('rejects the call a DEBUG RESTART cuts off with StorageError, and works after it', async () => {
    const stores = createRedisStores({ url: server.url, prefix: 'debug-restart' });
    try {
      await stores.history.append(alice, [message]);
      await stores.memory.add(alice, [{ content: 'Cached before the restart.' }]);
      expect(await stores.memory.list(alice)).toHaveLength(1);
      let error: unknown;
      const uncaught = await withoutUncaughtErrors(async () => {
        // The append waits behind the pause; the restart (an admin command, not held) then
        // drops every connection, the append's included.
        await admin.sendCommand(['CLIENT', 'PAUSE', '10000', 'WRITE']);
        const pending = rejection(stores.history.append(alice, [message]));
        await sleep(200);
        await admin.sendCommand(['DEBUG', 'RESTART']).catch(() => undefined);
        error = await pending;
      });
      expect(uncaught).toEqual([]);
      expect(StorageError.isInstance(error), String(error)).toBe(true);
      expect((error as Error).message).toMatch(/connection to Redis was lost/u);
      // The server restarted without persistence: the stores work again on what it holds
      // (nothing), and the cached cards of the old data are not handed out.
      expect(await eventuallySucceeds(() => stores.history.count(alice))).toBe(0);
      expect(await stores.memory.list(alice)).toEqual([]);
      await stores.memory.add(alice, [{ content: 'Added after the restart.' }]);
      expect((await stores.memory.list(alice)).map((card) => card.content)).toEqual([
        'Added after the restart.',
      ]);
    } finally {
      await stores.close();
    }
    await eventuallySucceeds(() => admin.sendCommand(['PING']));
  });
});

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

import {
  type DriverStores,
  type DriverStoresOptions,
  requireOptions,
  resolveDriverOptions,
} from '@ctxmem/core/driver-kit';
import {
  assertConnectionOptions,
  type RedisConnectionOptions,
  type ResolvedClient,
  resolveClient,
} from './connection.js';
import { checkPrefix, type RedisTtl, resolveTtl, type StoreContext } from './context.js';
import { createRedisHistoryStore } from './redis-history-store.js';
import { createRedisLeases } from './redis-leases.js';
import { createRedisMemoryStore } from './redis-memory-store.js';
import { createRedisOffloadStore } from './redis-offload-store.js';

export interface RedisStoresOptions extends RedisConnectionOptions, DriverStoresOptions {
  /**
   * Start of every key the stores write: `<prefix>:{<scope>}:history`, `...:state`,
   * `...:offload:<id>`, `...:cards`. Several applications (or tests) can share one Redis with
   * different prefixes.
   * @default 'ctxmem'
   */
  prefix?: string;
  /**
   * Expiry in seconds of what the stores write: one number for everything, or
   * `{ history, offload, memory }` (a missing entry never expires). It starts again whenever the
   * data is used: a session's history, turn index and working state together on every call on that
   * session (reads included), an offload when it is read or put again, memory cards when they are
   * written. Memory cards are meant to be long-lived: think twice before giving them a TTL.
   * @default undefined (nothing expires)
   */
  ttlSeconds?: number | RedisTtl;
}

export interface RedisStores extends DriverStores {
  /** Closes the client when this call opened it from `url`; a given client is left open. */
  close(): Promise<void>;
}

/**
 * History, working state, offloads and memory cards in Redis, shared by every instance of an
 * application. `redis` is loaded and a client connected on first use when a `url` is given.
 * Every multi-key change is a Lua script, so the stores are safe on one shared client and from
 * any number of processes, and work on Redis Cluster (a scope's keys share a hash tag).
 *
 * @example
 * const stores = createRedisStores({ url: process.env.REDIS_URL, ttlSeconds: { offload: 86_400 } });
 * const manager = createContextManager({
 *   model: 'gpt-4o',
 *   historyStore: stores.history,
 *   offloadStore: stores.offload,
 *   memory: { store: stores.memory },
 * });
 */
export function createRedisStores(given: RedisStoresOptions = {}): RedisStores {
  const {
    client,
    url,
    prefix = 'ctxmem',
    ttlSeconds,
    ...options
  } = requireOptions(given, 'createRedisStores');
  assertConnectionOptions({ client, url });
  const { required, clock, messageIds, cardIds } = resolveDriverOptions(options);
  const context: StoreContext = {
    client: () => {
      // A failed connection is forgotten, so the next call tries again.
      opened ??= resolveClient({ client, url }).catch((error: unknown) => {
        opened = undefined;
        throw error;
      });
      return opened.then((resolved) => resolved.client);
    },
    prefix: checkPrefix(prefix),
    required,
    clock,
    ttl: resolveTtl(ttlSeconds),
  };
  let opened: Promise<ResolvedClient> | undefined;
  let closed = false;
  return {
    history: createRedisHistoryStore(context, messageIds),
    offload: createRedisOffloadStore(context),
    leases: createRedisLeases(context),
    memory: createRedisMemoryStore(context, cardIds),
    async close() {
      if (closed || !opened) return;
      closed = true;
      const resolved = await opened.catch(() => undefined);
      await resolved?.close();
    },
  };
}

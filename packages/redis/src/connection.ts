import { createHash } from 'node:crypto';
import {
  assertConnectionTarget,
  databaseErrors,
  exponentialBackoff,
  guardErrorEvents,
  isSocketErrorCode,
  loadPeerDependency,
} from '@ctxmem/core/driver-kit';

/**
 * The one method of a Redis client the stores use. A node-redis v5 or v6 client (`createClient()`)
 * has it; so does anything that sends raw commands the same way.
 */
export interface RedisCommandClient {
  sendCommand(args: string[]): Promise<unknown>;
}

/** A client this package opened, which it must close. */
interface OwnedClient extends RedisCommandClient {
  connect(): Promise<unknown>;
  close?(): Promise<unknown>;
  quit?(): Promise<unknown>;
  on(event: 'error', listener: (error: unknown) => void): unknown;
}

interface ClientOptions {
  url: string;
  disableOfflineQueue: boolean;
  socket: { reconnectStrategy: (retries: number, cause: Error) => number | Error };
}

type RedisModule = { createClient: (options: ClientOptions) => OwnedClient };

/**
 * Loads `redis` on first use (see driver-kit's `loadPeerDependency`): importing this package costs
 * nothing, and a missing `redis` is a `StorageError` saying to install it.
 */
export async function loadRedis(
  importer: () => Promise<unknown> = () => import('redis'),
): Promise<RedisModule> {
  const createClient = await loadPeerDependency<RedisModule['createClient']>(importer, {
    name: 'redis',
    driver: '@ctxmem/redis',
    stores: 'Redis',
    exportName: 'createClient',
    minimum: 'redis 5',
    description: 'node-redis',
  });
  return { createClient };
}

export interface RedisConnectionOptions {
  /** A connected node-redis client. The stores never close a client they were given. */
  client?: RedisCommandClient;
  /**
   * A Redis URL, used when no `client` is given: a client is created (with `redis`, loaded on
   * first use), connected, and closed by `close()`.
   * @default undefined
   */
  url?: string;
}

export interface ResolvedClient {
  client: RedisCommandClient;
  close(): Promise<void>;
}

/** Throws `InvalidArgumentError` unless a client or a URL is given. */
export function assertConnectionOptions({ client, url }: RedisConnectionOptions): void {
  assertConnectionTarget({
    given: client,
    usable: (given) => typeof (given as RedisCommandClient).sendCommand === 'function',
    argument: 'client',
    invalid: '`client` must be a node-redis client (an object with sendCommand()).',
    url,
    missing: 'Pass a connected node-redis client as `client`, or a Redis URL as `url`.',
  });
}

/**
 * Keeps a client's `'error'` events from ending the process (see driver-kit's
 * `guardErrorEvents`): node-redis emits one for every socket error and every failed reconnection
 * attempt; the client reconnects by itself, and every command the error affects rejects on its
 * own as a `StorageError`. Always added to a client the stores opened; to a given client only when
 * it has no `'error'` listener of its own.
 */
export function guardClient(client: unknown, owned: boolean): void {
  guardErrorEvents(client, owned);
}

/** Delay before each reconnection attempt once connected: 50, 100, 200 … capped at 2 s. */
const reconnectDelay = exponentialBackoff({ initialMs: 50, maxMs: 2_000 });
/** Attempts to reach the server at start before `connect` fails. */
const CONNECT_ATTEMPTS = 3;

/** Takes the given client, or opens one from the URL, and guards it against error events. */
export async function resolveClient(options: RedisConnectionOptions): Promise<ResolvedClient> {
  assertConnectionOptions(options);
  if (options.client) {
    guardClient(options.client, false);
    return { client: options.client, close: async () => {} };
  }
  const { createClient } = await loadRedis();
  let connected = false;
  const client = createClient({
    url: options.url!,
    // While the connection is down, a command rejects at once (a StorageError saying the client
    // is offline) instead of waiting in a queue for a server that may not come back.
    disableOfflineQueue: true,
    socket: {
      // A server that cannot be reached at start is an error after a few tries (node-redis would
      // retry forever); one that goes away later is waited for, as for a restart.
      reconnectStrategy: (retries, cause) =>
        connected
          ? reconnectDelay(retries)
          : retries >= CONNECT_ATTEMPTS
            ? cause
            : 100 * (retries + 1),
    },
  });
  guardClient(client, true);
  await withStorageErrors(`connect to ${redactUrl(options.url!)}`, () => client.connect());
  connected = true;
  return {
    client,
    close: async () => {
      await (client.close ?? client.quit)?.call(client);
    },
  };
}

function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'Redis';
  }
}

const CONNECTION_LOST =
  'the connection to Redis was lost or refused; the client reconnects in the background and a later call can succeed';

/**
 * Whether an error means the connection is gone rather than the command being wrong: node-redis's
 * socket and offline errors (matched by message, as they are not exported the same way by every
 * version), or a socket error code.
 */
function isConnectionLoss(error: unknown, message: string): boolean {
  if (isSocketErrorCode((error as { code?: unknown } | null)?.code)) return true;
  return /^(Socket closed unexpectedly|The client is offline|Connection timeout)$/u.test(message);
}

/**
 * Wraps a Redis failure in a `StorageError` saying what was being done (`withStorageErrors` runs
 * work and maps what it throws). ctxmem errors pass through unchanged.
 */
export const { toStorageError, withStorageErrors } = databaseErrors({
  database: 'Redis',
  describe(error) {
    const detail = error instanceof Error ? error.message : String(error);
    return { detail, suffix: isConnectionLoss(error, detail) ? `; ${CONNECTION_LOST}` : '' };
  },
});

/** A Lua script, sent by its SHA-1 and loaded on first use (or after the server forgot it). */
export interface LuaScript {
  source: string;
  sha: string;
}

export function luaScript(source: string): LuaScript {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

/**
 * Runs a script atomically on the server. Scripts are what make the stores safe on a shared,
 * multiplexed connection: `WATCH` belongs to a connection, so concurrent operations on one
 * client would watch each other's keys, while a script runs alone and needs no watch.
 */
export async function runScript(
  client: RedisCommandClient,
  script: LuaScript,
  keys: readonly string[],
  args: readonly (string | number)[],
): Promise<unknown> {
  const tail = [String(keys.length), ...keys, ...args.map(String)];
  try {
    return await client.sendCommand(['EVALSHA', script.sha, ...tail]);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.includes('NOSCRIPT')) throw error;
    return client.sendCommand(['EVAL', script.source, ...tail]);
  }
}

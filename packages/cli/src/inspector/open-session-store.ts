/**
 * Opens the store a session is read from: a folder (the file store), or a PostgreSQL or Redis URL.
 * The drivers are optional packages, imported only when a URL asks for them, so the CLI installs
 * and starts without them and a missing one fails with `OptionalPackageMissingError`.
 */
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import {
  createFileHistoryStore,
  createFileOffloadStore,
  type HistoryStore,
  InvalidArgumentError,
  type MemoryStore,
  type OffloadStore,
  StorageError,
} from '@ctxmem/core';
import { OptionalPackageMissingError } from '../optional-package-missing-error.js';

/** A session's stores, opened for reading. */
export interface SessionStore {
  history: HistoryStore;
  offload: OffloadStore;
  /** What to call the store in messages: the folder or the URL without its password. */
  displayName: string;
  /** Closes the connection a URL opened. */
  close(): Promise<void>;
}

/** The stores of a driver package (`createPostgresStores`, `createRedisStores`) that the CLI uses. */
export interface DriverStores {
  history: HistoryStore;
  offload: OffloadStore;
  memory: MemoryStore;
  /** PostgreSQL's: creates or upgrades its tables. */
  migrate?(): Promise<unknown>;
  close(): Promise<void>;
}

export interface OpenSessionStoreOptions {
  /** A folder, `postgres://…` / `postgresql://…`, or `redis://…` / `rediss://…`. @default `.ctxmem` */
  store?: string;
  /** Resolves a folder. */
  cwd: string;
  /**
   * Imports a package by name; tests pass stand-ins.
   * @default (name) => import(name)
   */
  importModule?: (name: string) => Promise<unknown>;
}

const DRIVERS = {
  postgres: {
    packageName: '@ctxmem/postgres',
    protocols: ['postgres:', 'postgresql:'],
    open: (module: unknown, url: string) =>
      (
        module as { createPostgresStores(options: { connectionString: string }): DriverStores }
      ).createPostgresStores({ connectionString: url }),
  },
  redis: {
    packageName: '@ctxmem/redis',
    protocols: ['redis:', 'rediss:'],
    open: (module: unknown, url: string) =>
      (module as { createRedisStores(options: { url: string }): DriverStores }).createRedisStores({
        url,
      }),
  },
} as const;

/** The driver a store argument names, or undefined for a folder. */
export function storeDriverOf(store: string): keyof typeof DRIVERS | undefined {
  const protocol = /^[a-z][a-z0-9+.-]*:/iu.exec(store)?.[0]?.toLowerCase();
  if (protocol === undefined) return undefined;
  for (const [name, driver] of Object.entries(DRIVERS)) {
    if ((driver.protocols as readonly string[]).includes(protocol)) {
      return name as keyof typeof DRIVERS;
    }
  }
  // One-letter "protocols" are Windows drive letters (C:\…): a folder.
  if (protocol.length === 2) return undefined;
  throw new InvalidArgumentError({
    message: `--store ${redactUrl(store)}: unsupported store URL; use a folder, postgres://… or redis://…`,
    argument: '--store',
  });
}

/** The URL without its password, for messages. */
export function redactUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.password !== '') url.password = '***';
    return url.toString();
  } catch {
    return value;
  }
}

function isModuleNotFound(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return (
    code === 'ERR_MODULE_NOT_FOUND' ||
    code === 'MODULE_NOT_FOUND' ||
    (error instanceof Error && /Cannot find (package|module)/u.test(error.message))
  );
}

/**
 * Opens the stores of the driver a URL names (see `storeDriverOf`), importing its package. A
 * missing package fails with `OptionalPackageMissingError`; nothing connects until a store is used.
 */
export async function openDriverStores(
  driverName: keyof typeof DRIVERS,
  url: string,
  importModule: (name: string) => Promise<unknown> = (name) => import(name),
): Promise<DriverStores> {
  const driver = DRIVERS[driverName];
  let module: unknown;
  try {
    module = await importModule(driver.packageName);
  } catch (error) {
    if (!isModuleNotFound(error)) throw error;
    throw new OptionalPackageMissingError({
      packages: [driver.packageName],
      option: `--store ${driverName === 'postgres' ? 'postgres://…' : 'redis://…'}`,
      cause: error,
    });
  }
  return driver.open(module, url);
}

/**
 * Opens a session store for reading. The file store opens in strict mode so reading never rewrites
 * a damaged file; the drivers are used as they are (they only write on write calls, and the
 * inspector makes none).
 */
export async function openSessionStore({
  store,
  cwd,
  importModule = (name) => import(name),
}: OpenSessionStoreOptions): Promise<SessionStore> {
  const driverName = store === undefined ? undefined : storeDriverOf(store);
  if (store !== undefined && driverName !== undefined) {
    // The inspector builds no schema and writes nothing.
    const stores = await openDriverStores(driverName, store, importModule);
    return {
      history: stores.history,
      offload: stores.offload,
      displayName: redactUrl(store),
      close: () => stores.close(),
    };
  }
  const displayName = store ?? '.ctxmem';
  const root = resolve(cwd, displayName);
  if (!(await stat(root).catch(() => undefined))?.isDirectory()) {
    throw new StorageError({
      message: `no store at ${displayName} (pass --store <dir>, postgres://… or redis://…)`,
      path: root,
    });
  }
  return {
    history: createFileHistoryStore({ root, corruption: 'strict' }),
    offload: createFileOffloadStore({ root, corruption: 'strict' }),
    displayName,
    close: async () => undefined,
  };
}

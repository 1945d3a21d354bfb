import { randomUUID } from 'node:crypto';
import {
  createContextManager,
  type HistoryStore,
  InvalidArgumentError,
  type OffloadStore,
  StorageError,
} from '@ctxmem/core';
import { countHistory } from '@ctxmem/core/driver-kit';
import { afterAll, describe, expect, it } from 'vitest';
import {
  missingServerMessage,
  stopTestServices,
  testServices,
} from '../../../../test/setup/services.js';
import { OptionalPackageMissingError } from '../optional-package-missing-error.js';
import { useCliFolder } from '../run-cli.test-helper.js';
import { agentConversation, inspectToPage, playCalls } from './fixture.test-helper.js';
import { openSessionStore, redactUrl, storeDriverOf } from './open-session-store.js';

const services = await testServices();
afterAll(stopTestServices);

const cli = useCliFolder('ctxmem-session-store');

describe('openSessionStore', () => {
  it('tells folders from driver URLs, and rejects an unknown scheme', () => {
    expect(storeDriverOf('.ctxmem')).toBeUndefined();
    expect(storeDriverOf('C:\\stores\\ctxmem')).toBeUndefined();
    expect(storeDriverOf('postgres://db/app')).toBe('postgres');
    expect(storeDriverOf('postgresql://db/app')).toBe('postgres');
    expect(storeDriverOf('rediss://cache:6380')).toBe('redis');
    expect(() => storeDriverOf('mysql://user:hunter2@db/app')).toThrow(InvalidArgumentError);
    expect(() => storeDriverOf('mysql://user:hunter2@db/app')).toThrow(/mysql:\/\/user:\*\*\*@db/);
    expect(redactUrl('postgres://ada:secret@db:5432/app')).toBe('postgres://ada:***@db:5432/app');
  });

  it('names the package to install when the driver is missing', async () => {
    const missing = Object.assign(new Error("Cannot find package '@ctxmem/redis'"), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
    const error = await openSessionStore({
      store: 'redis://127.0.0.1:1',
      cwd: cli.directory(),
      importModule: async () => {
        throw missing;
      },
    }).catch((caught: unknown) => caught);
    expect(OptionalPackageMissingError.isInstance(error)).toBe(true);
    expect((error as OptionalPackageMissingError).packages).toEqual(['@ctxmem/redis']);
    expect((error as Error).message).toMatch(/npm install @ctxmem\/redis/);
    // Any other failure of the import is not hidden behind "missing".
    const broken = new SyntaxError('Unexpected token');
    await expect(
      openSessionStore({
        store: 'postgres://127.0.0.1:1/x',
        cwd: cli.directory(),
        importModule: async () => {
          throw broken;
        },
      }),
    ).rejects.toBe(broken);
  });

  it('opens a folder as the file store and refuses a folder that is not there', async () => {
    await expect(openSessionStore({ store: 'absent', cwd: cli.directory() })).rejects.toThrow(
      StorageError,
    );
    const store = await openSessionStore({ store: '.', cwd: cli.directory() });
    expect(store.displayName).toBe('.');
    expect(await countHistory(store.history, { sessionId: 'none' })).toBe(0);
    await store.close();
  });
});

/** Runs a session through a manager on the driver's stores, then inspects it by URL. */
async function inspectThroughUrl(
  url: string,
  stores: { history: HistoryStore; offload: OffloadStore; close(): Promise<void> },
) {
  const scope = { sessionId: `inspect-${randomUUID()}` };
  try {
    const manager = createContextManager({
      contextWindow: 6_000,
      historyStore: stores.history,
      offloadStore: stores.offload,
    });
    const results = await playCalls(manager, agentConversation(), scope);
    const compactions = results.filter((result) => result.compacted).length;
    const { html } = await inspectToPage(cli, [
      scope.sessionId,
      '--store',
      url,
      '--context-window',
      '6000',
    ]);
    expect(compactions).toBeGreaterThan(0);
    expect(html).toContain('<section id="timeline" data-source="recorded">');
    expect(html.match(/data-compaction="/g)).toHaveLength(compactions);
    expect(html).toContain('Working state recorded in the store');
    expect(html).not.toContain('not found in the offload store');
    return html;
  } finally {
    await stores.history.clear(scope);
    await stores.close();
  }
}

describe('ctxmem inspect --store postgres://…', () => {
  if (!services.postgresUrl) {
    it.skip(missingServerMessage('PostgreSQL', services.problems), () => {});
    return;
  }
  const url = services.postgresUrl;
  it('reads a session the context manager stored in PostgreSQL', async () => {
    const { createPostgresStores } = await import('@ctxmem/postgres');
    const stores = createPostgresStores({ connectionString: url });
    await stores.migrate();
    const html = await inspectThroughUrl(url, stores);
    // The title names the database without its password.
    const password = new URL(url).password;
    if (password !== '') expect(html).not.toContain(password);
  });
});

describe('ctxmem inspect --store redis://…', () => {
  if (!services.redisUrl) {
    it.skip(missingServerMessage('Redis', services.problems), () => {});
    return;
  }
  const url = services.redisUrl;
  it('reads a session the context manager stored in Redis', async () => {
    const { createRedisStores } = await import('@ctxmem/redis');
    await inspectThroughUrl(url, createRedisStores({ url }));
  });
});

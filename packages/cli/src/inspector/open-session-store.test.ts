import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createContextManager,
  type HistoryStore,
  InvalidArgumentError,
  type OffloadStore,
  StorageError,
} from '@ctxmem/core';
import { countHistory } from '@ctxmem/core/driver-kit';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  missingServerMessage,
  stopTestServices,
  testServices,
} from '../../../../test/setup/services.js';
import { type CliContext, runCli } from '../index.js';
import { OptionalPackageMissingError } from '../optional-package-missing-error.js';
import { agentConversation } from './fixture.test-helper.js';
import { callPoints } from './index.js';
import { openSessionStore, redactUrl, storeDriverOf } from './open-session-store.js';

const services = await testServices();
afterAll(stopTestServices);

let directory: string;

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'ctxmem-session-store-'));
});

afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

function context(): CliContext & { out: () => string; err: () => string } {
  let stdout = '';
  let stderr = '';
  return {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    cwd: directory,
    env: {},
    out: () => stdout,
    err: () => stderr,
  };
}

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
      cwd: directory,
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
        cwd: directory,
        importModule: async () => {
          throw broken;
        },
      }),
    ).rejects.toBe(broken);
  });

  it('opens a folder as the file store and refuses a folder that is not there', async () => {
    await expect(openSessionStore({ store: 'absent', cwd: directory })).rejects.toThrow(
      StorageError,
    );
    const store = await openSessionStore({ store: '.', cwd: directory });
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
    const messages = agentConversation();
    let compactions = 0;
    for (const end of callPoints(messages)) {
      if ((await manager.prepare(messages.slice(0, end), { scope })).compacted) compactions++;
    }
    const cli = context();
    const code = await runCli(
      ['inspect', scope.sessionId, '--store', url, '--context-window', '6000', '--html', 'db.html'],
      cli,
    );
    expect(cli.err()).toBe('');
    expect(code).toBe(0);
    const html = await readFile(join(directory, 'db.html'), 'utf8');
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

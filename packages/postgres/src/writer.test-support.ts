/**
 * Child process for the multi-process tests of the PostgreSQL stores. Run as
 * `node --import tsx writer.test-support.ts '<json>'` where the JSON is one of
 * - `{ "mode": "write", "url", "schema", "label", "count"? }`: adds a card and appends a message
 *   per step, printing `card <content>` / `message <index> <content>` once each write is
 *   acknowledged, then `done`;
 * - `{ "mode": "migrate", "url", "schema", "startAt" }`: migrates at `startAt` (epoch ms) and
 *   prints `migrated <applied versions as JSON>`;
 * - `{ "mode": "state", "url", "schema", "label", "count", "startAt" }`: `count` times reads the
 *   working state and writes it back one message longer at the version it read, retrying on
 *   `ConflictError`; prints `won <version>` for each write that went through.
 * - `{ "mode": "converse", "url", "schema", "startAt" }`: from `startAt` (epoch ms), serves every
 *   turn of core's shared 30-turn conversation with its own context manager (see
 *   `playSharedConversation`).
 * It prints `ready` once connected.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ConflictError } from '@ctxmem/core';
import { playSharedConversation } from '@ctxmem/core/test';
import { createPostgresStores } from './create-postgres-stores.js';

type Job =
  | { mode: 'write'; url: string; schema: string; label: string; count?: number }
  | { mode: 'migrate'; url: string; schema: string; startAt: number }
  | { mode: 'state'; url: string; schema: string; label: string; count: number; startAt: number }
  | { mode: 'converse'; url: string; schema: string; startAt: number };

const job = JSON.parse(process.argv[2] ?? '{}') as Job;
const print = (line: string) =>
  new Promise<void>((resolve) => {
    process.stdout.write(`${line}\n`, () => resolve());
  });

const scope = { userId: 'process-test', sessionId: 'one' };
const stores = createPostgresStores({ connectionString: job.url, schema: job.schema });
await stores.schemaVersion();
await print('ready');

if (job.mode === 'write') {
  const count = job.count ?? Number.POSITIVE_INFINITY;
  for (let step = 0; step < count; step++) {
    const content = `note ${job.label} ${step}`;
    await stores.memory.add(scope, [{ content, type: 'todo' }]);
    await print(`card ${content}`);
    const [stored] = await stores.history.append(scope, [
      { role: 'user', content: `message ${job.label} ${step}` },
    ]);
    await print(`message ${stored!.index} message ${job.label} ${step}`);
  }
} else if (job.mode === 'migrate') {
  await sleep(Math.max(0, job.startAt - Date.now()));
  const result = await stores.migrate();
  await print(`migrated ${JSON.stringify(result.applied)}`);
} else if (job.mode === 'converse') {
  await sleep(Math.max(0, job.startAt - Date.now()));
  await playSharedConversation(stores.history, { scope });
} else if (job.mode === 'state') {
  await sleep(Math.max(0, job.startAt - Date.now()));
  for (let step = 0; step < job.count; step++) {
    for (;;) {
      const current = await stores.history.getState(scope);
      const messages = [
        ...(current?.messages ?? []),
        { role: 'user' as const, content: `${job.label} ${step}` },
      ];
      try {
        const version = await stores.history.setState(
          scope,
          { summarizedCount: 0, messages, cycle: 0 },
          current?.version ?? 0,
        );
        await print(`won ${version}`);
        break;
      } catch (error) {
        if (!ConflictError.isInstance(error)) throw error;
      }
    }
  }
}
await print('done');
await stores.close();

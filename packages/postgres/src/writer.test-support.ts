/**
 * Child process for the multi-process tests of the PostgreSQL stores. Run as
 * `node --import tsx writer.test-support.ts '<json>'` where the JSON is `{ url, schema }` with
 * - a job of core's `runSharedStoresJob` (`mode` write, state or converse), or
 * - `{ "mode": "migrate", "startAt" }`: migrates at `startAt` (epoch ms) and prints
 *   `migrated <applied versions as JSON>`.
 * It prints `ready` once connected and `done` at the end.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { runSharedStoresJob, type SharedStoresJob } from '@ctxmem/core/test';
import { createPostgresStores } from './create-postgres-stores.js';

type Job = { url: string; schema: string } & (
  | SharedStoresJob
  | { mode: 'migrate'; startAt: number }
);

const job = JSON.parse(process.argv[2] ?? '{}') as Job;
const print = (line: string) =>
  new Promise<void>((resolve) => {
    process.stdout.write(`${line}\n`, () => resolve());
  });

const stores = createPostgresStores({ connectionString: job.url, schema: job.schema });
await stores.schemaVersion();
await print('ready');
if (job.mode === 'migrate') {
  await sleep(Math.max(0, job.startAt - Date.now()));
  const result = await stores.migrate();
  await print(`migrated ${JSON.stringify(result.applied)}`);
} else {
  await runSharedStoresJob(stores, job, print);
}
await print('done');
await stores.close();

/**
 * Child process for the multi-process tests of the PostgreSQL stores, run (bundled, see
 * test/setup/fixture-bundle.ts) as `node writer.mjs '<json>'` where the JSON is `{ url, schema }`
 * with
 * - a job of core's `runSharedStoresJob` (`mode` write, state or converse), or
 * - `{ "mode": "migrate" }`: migrates once released (a `go` line on standard input, so that
 *   several processes migrate at the same moment) and prints `migrated <applied versions as JSON>`.
 * It prints `ready` once connected and `done` at the end.
 */
import { released, runSharedStoresJob, type SharedStoresJob } from '@ctxmem/core/test';
import { createPostgresStores } from './create-postgres-stores.js';

type Job = { url: string; schema: string } & (SharedStoresJob | { mode: 'migrate' });

const job = JSON.parse(process.argv[2] ?? '{}') as Job;
const print = (line: string) =>
  new Promise<void>((resolve) => {
    process.stdout.write(`${line}\n`, () => resolve());
  });

const stores = createPostgresStores({ connectionString: job.url, schema: job.schema });
await stores.schemaVersion();
await print('ready');
if (job.mode === 'migrate') {
  await released();
  const result = await stores.migrate();
  await print(`migrated ${JSON.stringify(result.applied)}`);
} else {
  await runSharedStoresJob(stores, job, print);
}
await print('done');
await stores.close();

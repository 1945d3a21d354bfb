/**
 * Child process for the multi-process tests of the Redis stores, run (bundled, see
 * test/setup/fixture-bundle.ts) as `node writer.mjs '<json>'` where the JSON is a job of core's
 * `runSharedStoresJob` with `url` and `prefix`. It prints `ready` once connected and `done` at
 * the end.
 */
import { runSharedStoresJob, type SharedStoresJob } from '@ctxmem/core/test';
import { createRedisStores } from './create-redis-stores.js';

const job = JSON.parse(process.argv[2] ?? '{}') as SharedStoresJob & {
  url: string;
  prefix: string;
};
const print = (line: string) =>
  new Promise<void>((resolve) => {
    process.stdout.write(`${line}\n`, () => resolve());
  });

const stores = createRedisStores({ url: job.url, prefix: job.prefix });
await stores.history.count({ userId: 'process-test', sessionId: 'one' });
await print('ready');
await runSharedStoresJob(stores, job, print);
await print('done');
await stores.close();

/**
 * `load [postgres|redis] [--sessions N] [--turns N] [--concurrency N] [--hedge-every N]`: three app
 * instances behind a round-robin proxy on one shared store, under a bounded load (see `load.ts`).
 * Prints the report as JSON and exits with 1 when a prompt was invalid, a request failed, or a
 * message was duplicated or lost.
 */
import { randomUUID } from 'node:crypto';
import { runLoad } from './load.js';
import { type StoreKind, storeUrl } from './stores.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const store = (args.find((arg) => arg === 'postgres' || arg === 'redis') ??
  'postgres') as StoreKind;
const namespace =
  store === 'postgres'
    ? `ctxmem_load_${randomUUID().replaceAll('-', '').slice(0, 8)}`
    : `ctxmem-load-${randomUUID().slice(0, 8)}`;
const sessions = option('sessions', 100);
const turns = option('turns', 20);
console.error(
  `3 instances behind a round-robin proxy on ${store} (${namespace}): ${sessions} sessions × ${turns} turns...`,
);
const report = await runLoad({
  store,
  url: storeUrl(store),
  namespace,
  sessions,
  turns,
  concurrency: option('concurrency', 10),
  hedgeEvery: option('hedge-every', 4),
});
console.log(JSON.stringify(report, null, 2));
const clean =
  report.invalidPrompts +
    report.failedRequests +
    report.duplicates +
    report.losses +
    report.misordered ===
  0;
process.exit(clean ? 0 : 1);

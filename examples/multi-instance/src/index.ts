/**
 * Two processes sharing one PostgreSQL store, as two server instances behind a load balancer:
 * the first compacts a conversation that outgrew its window, the second serves the next request
 * of the same session from the stored summary.
 *
 *   bash scripts/test-services.sh start && source .cache/test-services.env
 *   pnpm --filter @ctxmem/example-multi-instance start
 *
 * (or set CTXMEM_POSTGRES_URL to any PostgreSQL database you can create a schema in).
 * `… start load [postgres|redis]` runs three instances behind a round-robin proxy under load
 * instead (see `load-command.ts`).
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createPostgresStores } from '@ctxmem/postgres';
import { scope } from './conversation.js';

const run = promisify(execFile);
const instance = fileURLToPath(new URL('./instance.ts', import.meta.url));

export interface ExampleOptions {
  connectionString: string;
  /** @default 'ctxmem_example' */
  schema?: string;
  /** Where each line of the walk-through goes. @default console.log */
  print?: (line: string) => void;
}

export interface InstanceReport {
  role: 'compact' | 'read';
  compacted: boolean;
  tokens: number;
  storedVersion?: number;
  summarizedCount?: number;
  [key: string]: unknown;
}

async function runInstance(
  role: 'compact' | 'read',
  connectionString: string,
  schema: string,
): Promise<InstanceReport> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', instance, role], {
    env: { ...process.env, CTXMEM_POSTGRES_URL: connectionString, CTXMEM_EXAMPLE_SCHEMA: schema },
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as InstanceReport;
}

/** Migrates the schema, clears the demo session, runs both instances one after the other. */
export async function runExample({
  connectionString,
  schema = 'ctxmem_example',
  print = console.log,
}: ExampleOptions): Promise<{ compactor: InstanceReport; reader: InstanceReport }> {
  const stores = createPostgresStores({ connectionString, schema });
  try {
    await stores.migrate();
    await stores.history.clear(scope);
  } finally {
    await stores.close();
  }
  print('instance A (one process) prepares the long conversation...');
  const compactor = await runInstance('compact', connectionString, schema);
  print(`  ${JSON.stringify(compactor)}`);
  print('instance B (another process) serves the same session...');
  const reader = await runInstance('read', connectionString, schema);
  print(`  ${JSON.stringify(reader)}`);
  return { compactor, reader };
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === 'load') {
  // `start load …`: three instances behind a proxy under load (see load-command.ts).
  await import('./load-command.js');
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const connectionString = process.argv[2] ?? process.env.CTXMEM_POSTGRES_URL;
  if (!connectionString) {
    console.error(
      'Set CTXMEM_POSTGRES_URL (or pass a URL): `bash scripts/test-services.sh start` starts a local server.',
    );
    process.exit(1);
  }
  await runExample({ connectionString });
}

/**
 * Many writers on one scope (part of `drivers.bench.ts`): writer processes, each with its own
 * stores as an application instance would have, add cards to one scope all at once; the CPU each
 * spends (and, on a local PostgreSQL, its backend's) is read around its adds. Run with
 * `--writer <job JSON>`, this file is one such writer process.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { MemoryStore } from '../packages/core/src/contracts/index.js';
import { createFileMemoryStore } from '../packages/core/src/memory/index.js';
import { createPostgresStores, loadPg } from '../packages/postgres/src/index.js';
import { createRedisStores } from '../packages/redis/src/index.js';
import { percentileOf, round, sum } from './latency.js';
import { sentence } from './store-sentences.js';
import type { BenchSection } from './types.js';

/** What a writer process is told to do (see `writerProcess`). */
interface WriterJob {
  driver: 'file' | 'postgres' | 'redis';
  /** Root folder (file), connection string (postgres) or URL (redis). */
  target: string;
  /** Schema (postgres) or key prefix (redis). */
  namespace: string;
  scope: { userId: string; sessionId: string };
  writer: number;
  each: number;
  /** Epoch ms at which every writer starts adding. */
  startAt: number;
}

interface WriterStores {
  memory: MemoryStore;
  /** CPU ms the server has spent for this writer so far, when it can be read (a local PostgreSQL). */
  serverCpu(): Promise<number | undefined>;
  close(): Promise<void>;
}

/** CPU ms of a local process by pid, from /proc (undefined elsewhere). */
async function processCpu(pid: number): Promise<number | undefined> {
  try {
    const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
    // utime and stime, in clock ticks of 10 ms (Linux's USER_HZ).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

async function openWriterStores(job: WriterJob): Promise<WriterStores> {
  const unknown = async () => undefined;
  if (job.driver === 'file') {
    return {
      memory: createFileMemoryStore({ root: job.target }),
      serverCpu: unknown,
      close: async () => {},
    };
  }
  if (job.driver === 'postgres') {
    // One connection, as a writer adding one card at a time uses: its backend's CPU is this
    // writer's share of the server's.
    const { Pool } = await loadPg();
    const config = { connectionString: job.target, max: 1 };
    const pool = new Pool(config);
    const stores = createPostgresStores({ pool, schema: job.namespace });
    return {
      memory: stores.memory,
      async serverCpu() {
        const { rows } = await pool.query('SELECT pg_backend_pid() AS pid');
        return processCpu(Number((rows[0] as { pid: number }).pid));
      },
      async close() {
        await stores.close();
        await pool.end();
      },
    };
  }
  const stores = createRedisStores({ url: job.target, prefix: job.namespace });
  return { memory: stores.memory, serverCpu: unknown, close: () => stores.close() };
}

/** What a writer process reports. */
interface WriterResult {
  /** Latency of each add, ms. */
  times: number[];
  /** Epoch ms at which the last add ended. */
  end: number;
  /** CPU ms the writer process spent in its adds. */
  cpu: number;
  /** CPU ms its PostgreSQL backend spent meanwhile, when readable. */
  serverCpu?: number;
}

/**
 * One writer, in a process of its own as an application instance would be: waits for `startAt`,
 * adds `each` cards one at a time, and prints the latency of each add (ms), its end time and the
 * CPU it (and its PostgreSQL backend) spent as one JSON line.
 */
async function writerProcess(job: WriterJob): Promise<void> {
  const stores = await openWriterStores(job);
  // Connects (and loads the scope) before the start, as a running instance would have.
  await stores.memory.list(job.scope);
  const serverBefore = await stores.serverCpu();
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, job.startAt - Date.now())));
  const times: number[] = [];
  const cpuBefore = process.cpuUsage();
  for (let index = 0; index < job.each; index++) {
    const before = performance.now();
    await stores.memory.add(job.scope, [
      { content: sentence(2_000_000 + job.writer * job.each + index), type: 'todo' },
    ]);
    times.push(performance.now() - before);
  }
  const end = Date.now();
  const used = process.cpuUsage(cpuBefore);
  const serverAfter = await stores.serverCpu();
  await stores.close();
  const result: WriterResult = {
    times,
    end,
    cpu: (used.user + used.system) / 1000,
    serverCpu:
      serverBefore === undefined || serverAfter === undefined
        ? undefined
        : serverAfter - serverBefore,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

function runWriter(job: WriterJob): Promise<WriterResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(import.meta.url), '--writer', JSON.stringify(job)],
      { cwd: fileURLToPath(new URL('..', import.meta.url)), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    let errors = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      errors += chunk;
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`writer ${job.writer} exited with ${code}: ${errors}`));
      else resolve(JSON.parse(output.trim().split('\n').at(-1)!));
    });
  });
}

/**
 * `writers` processes add `each` cards one at a time to one scope, all at once; adds/s is every
 * card over the time from the common start to the last writer's end.
 */
export async function manyWriters(
  driver: WriterJob['driver'],
  target: string,
  namespace: string,
  writers: number,
  each: number,
): Promise<BenchSection['rows'][number]> {
  const writerScope = { userId: 'bench-writers', sessionId: randomUUID().slice(0, 8) };
  const check = await openWriterStores({
    driver,
    target,
    namespace,
    scope: writerScope,
    writer: 0,
    each: 0,
    startAt: 0,
  });
  try {
    // Processes take a while to start on a loaded machine: all are told one start time.
    const startAt = Date.now() + 3_000 + 400 * writers;
    const results = await Promise.all(
      Array.from({ length: writers }, (_, writer) =>
        runWriter({ driver, target, namespace, scope: writerScope, writer, each, startAt }),
      ),
    );
    const total = Math.max(...results.map((result) => result.end)) - startAt;
    const times = results.flatMap((result) => result.times).sort((left, right) => left - right);
    const stored = await check.memory.list(writerScope, { includeSuperseded: true });
    await check.memory.remove(
      writerScope,
      stored.map((card) => card.id),
    );
    return {
      driver,
      'writer processes': writers,
      'cards added': writers * each,
      'cards stored': stored.length,
      'adds/s': round(((writers * each) / total) * 1000, 1),
      'add p50 (ms)': round(percentileOf(times, 0.5)),
      'add p99 (ms)': round(percentileOf(times, 0.99)),
      'writer CPU (ms/add)': round(sum(results.map((result) => result.cpu)) / (writers * each)),
      'server CPU (ms/add)': results.every((result) => result.serverCpu !== undefined)
        ? round(sum(results.map((result) => result.serverCpu!)) / (writers * each))
        : '',
    };
  } finally {
    await check.close();
  }
}

if (process.argv[2] === '--writer') await writerProcess(JSON.parse(process.argv[3]!) as WriterJob);

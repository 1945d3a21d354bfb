/**
 * Many writers on one scope (part of `drivers.bench.ts`): writer processes, each with its own
 * stores as an application instance would have, add cards to one scope all at once; the CPU each
 * spends (and the server's) is read around its adds. Run with `--writer <job JSON>`, this file is
 * one such writer process.
 *
 * A writer first gets ready as a running instance is: connected, the scope loaded, and its code
 * warmed by `warmUp` adds to a scope of its own (a process's first adds run unoptimized and cost
 * it 2 to 3 times the CPU of later ones). It then says so and waits; every writer starts when the
 * last one is ready, so a slow process start is not counted as slow adds.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { MemoryStore } from '../packages/core/src/contracts/index.js';
import { createFileMemoryStore } from '../packages/core/src/memory/index.js';
import { createPostgresStores, loadPg } from '../packages/postgres/src/index.js';
import { createRedisStores, loadRedis } from '../packages/redis/src/index.js';
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
  /**
   * Adds the writer keeps in flight, as an instance serving that many requests of the scope at
   * once: each of `inFlight` loops adds its share one at a time.
   */
  inFlight: number;
  /** Adds to a scope of the writer's own before it says it is ready. */
  warmUp: number;
}

interface WriterStores {
  memory: MemoryStore;
  /**
   * CPU ms the server has spent so far: for PostgreSQL this connection's backend (read from /proc,
   * so a server on this machine), for Redis the whole server (`INFO cpu`, one process serving every
   * writer); undefined when unknown.
   */
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
  const client = (await loadRedis()).createClient({
    url: job.target,
    disableOfflineQueue: true,
    socket: { reconnectStrategy: () => 100 },
  });
  await client.connect();
  const stores = createRedisStores({ client, prefix: job.namespace });
  return {
    memory: stores.memory,
    async serverCpu() {
      const info = String(await client.sendCommand(['INFO', 'cpu']));
      const seconds = (name: string) => Number(new RegExp(`${name}:([0-9.]+)`).exec(info)?.[1]);
      return (seconds('used_cpu_sys') + seconds('used_cpu_user')) * 1000;
    },
    async close() {
      await stores.close();
      await client.close?.();
    },
  };
}

/** What a writer process reports. */
interface WriterResult {
  /** Latency of each add, ms. */
  times: number[];
  /** Epoch ms at which the last add ended. */
  end: number;
  /** CPU ms the writer process spent in its adds. */
  cpu: number;
  /** CPU ms its PostgreSQL backend spent meanwhile, when readable (Redis: see `serverCpu`). */
  serverCpu?: number;
}

/**
 * One writer, in a process of its own as an application instance would be: gets ready (see the
 * module comment), prints `ready`, waits for a line on stdin, adds `each` cards (`inFlight` at a
 * time), and prints the latency of each add (ms), its end time and the CPU it (and its PostgreSQL
 * backend) spent as one JSON line.
 */
async function writerProcess(job: WriterJob): Promise<void> {
  const stores = await openWriterStores(job);
  const warmScope = { userId: 'bench-writers-warm-up', sessionId: randomUUID().slice(0, 8) };
  for (let index = 0; index < job.warmUp; index++) {
    await stores.memory.add(warmScope, [{ content: sentence(3_000_000 + index), type: 'todo' }]);
  }
  const warmCards = await stores.memory.list(warmScope, { includeSuperseded: true });
  await stores.memory.remove(
    warmScope,
    warmCards.map((card) => card.id),
  );
  await stores.memory.list(job.scope);
  const serverBefore = job.driver === 'postgres' ? await stores.serverCpu() : undefined;
  process.stdout.write('ready\n');
  await new Promise((resolve) => process.stdin.once('data', resolve));
  const times: number[] = [];
  const cpuBefore = process.cpuUsage();
  let next = 0;
  const addInTurn = async () => {
    while (next < job.each) {
      const index = next++;
      const before = performance.now();
      await stores.memory.add(job.scope, [
        { content: sentence(2_000_000 + job.writer * job.each + index), type: 'todo' },
      ]);
      times.push(performance.now() - before);
    }
  };
  await Promise.all(Array.from({ length: job.inFlight }, addInTurn));
  const end = Date.now();
  const used = process.cpuUsage(cpuBefore);
  const serverAfter = job.driver === 'postgres' ? await stores.serverCpu() : undefined;
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
  process.stdin.destroy();
}

/** A started writer process: `ready` settles once it is ready, `go` starts it, `result` reports. */
interface StartedWriter {
  ready: Promise<void>;
  go(): void;
  result: Promise<WriterResult>;
}

function startWriter(job: WriterJob): StartedWriter {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(import.meta.url), '--writer', JSON.stringify(job)],
    { cwd: fileURLToPath(new URL('..', import.meta.url)), stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let output = '';
  let errors = '';
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
    if (output.startsWith('ready\n')) markReady();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    errors += chunk;
  });
  const result = new Promise<WriterResult>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`writer ${job.writer} exited with ${code}: ${errors}`));
      else resolve(JSON.parse(output.trim().split('\n').at(-1)!));
    });
  });
  return {
    ready: Promise.race([ready, result.then(() => {})]),
    go: () => child.stdin.write('go\n'),
    result,
  };
}

/**
 * `writers` processes add `each` cards each to one scope, all at once, one at a time or `inFlight`
 * at a time; adds/s is every card over the time from the common start to the last writer's end.
 */
export async function manyWriters(
  driver: WriterJob['driver'],
  target: string,
  namespace: string,
  writers: number,
  each: number,
  inFlight = 1,
  warmUp = 200,
): Promise<BenchSection['rows'][number]> {
  const writerScope = { userId: 'bench-writers', sessionId: randomUUID().slice(0, 8) };
  const check = await openWriterStores({
    driver,
    target,
    namespace,
    scope: writerScope,
    writer: 0,
    each: 0,
    inFlight: 1,
    warmUp: 0,
  });
  try {
    const started = Array.from({ length: writers }, (_, writer) =>
      startWriter({
        driver,
        target,
        namespace,
        scope: writerScope,
        writer,
        each,
        inFlight,
        warmUp,
      }),
    );
    await Promise.all(started.map((writer) => writer.ready));
    const serverBefore = driver === 'redis' ? await check.serverCpu() : undefined;
    const startAt = Date.now();
    for (const writer of started) writer.go();
    const results = await Promise.all(started.map((writer) => writer.result));
    const serverAfter = driver === 'redis' ? await check.serverCpu() : undefined;
    const serverCpu =
      serverBefore !== undefined && serverAfter !== undefined
        ? serverAfter - serverBefore
        : results.every((result) => result.serverCpu !== undefined)
          ? sum(results.map((result) => result.serverCpu!))
          : undefined;
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
      'adds in flight per writer': inFlight,
      'cards added': writers * each,
      'cards stored': stored.length,
      'adds/s': round(((writers * each) / total) * 1000, 1),
      'add p50 (ms)': round(percentileOf(times, 0.5)),
      'add p99 (ms)': round(percentileOf(times, 0.99)),
      'writer CPU (ms/add)': round(sum(results.map((result) => result.cpu)) / (writers * each)),
      'server CPU (ms/add)': serverCpu === undefined ? '' : round(serverCpu / (writers * each)),
    };
  } finally {
    await check.close();
  }
}

if (process.argv[2] === '--writer') await writerProcess(JSON.parse(process.argv[3]!) as WriterJob);

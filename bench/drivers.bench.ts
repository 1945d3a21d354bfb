/**
 * The shared-store drivers against the file store: throughput and latency percentiles of adding
 * memory cards (each add de-duplicates against every current card of the scope), of searching
 * them (core's BM25 search over `list`, and PostgreSQL's own `tsvector` search), and of appending
 * to the history; then 8 writers adding to one scope at once, and PostgreSQL's keyword search over a
 * large scope. PostgreSQL and Redis run on loopback servers: `CTXMEM_POSTGRES_URL` /
 * `CTXMEM_REDIS_URL`, a running `scripts/test-services.sh`, or temporary servers started here when
 * the binaries are installed; a driver without a server is skipped with a note.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type {
  HistoryStore,
  MemoryCard,
  MemoryStore,
  Message,
} from '../packages/core/src/contracts/index.js';
import { cardSearchText, encodeCard } from '../packages/core/src/driver-kit/index.js';
import { createFileHistoryStore } from '../packages/core/src/history/index.js';
import { createFileMemoryStore } from '../packages/core/src/memory/index.js';
import { createMemorySearch } from '../packages/core/src/retrieval/index.js';
import { normalizeScope, scopeKey } from '../packages/core/src/storage/index.js';
import {
  createPostgresStores,
  loadPg,
  type PostgresMemoryStore,
  type PostgresStores,
} from '../packages/postgres/src/index.js';
import { keywordVector } from '../packages/postgres/src/keyword-terms.js';
import { createRedisStores, type RedisStores } from '../packages/redis/src/index.js';
import {
  configuredServices,
  type ServiceUrls,
  type StartedServices,
  startServices,
} from '../test/setup/services.js';
import type { BenchRun, BenchSection } from './types.js';

const scope = { userId: 'bench-user', sessionId: 'bench' };

const WORDS = (
  'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar ' +
  'papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu amber cobalt jade onyx ' +
  'ruby slate topaz umber violet willow cedar maple birch aspen'
).split(' ');

/** A deterministic pseudo-random sentence that neither duplicates nor supersedes another. */
function sentence(seed: number): string {
  let state = seed * 2654435761 + 1;
  const pick = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return WORDS[state % WORDS.length]!;
  };
  return `Note ${seed}: ${Array.from({ length: 8 }, pick).join(' ')}.`;
}

interface Timing {
  /** Operations per second, one at a time. */
  throughput: number;
  p50: number;
  p99: number;
}

async function time(
  count: number,
  operation: (index: number) => Promise<unknown>,
): Promise<Timing> {
  const times: number[] = [];
  const start = performance.now();
  for (let index = 0; index < count; index++) {
    const before = performance.now();
    await operation(index);
    times.push(performance.now() - before);
  }
  const total = performance.now() - start;
  times.sort((left, right) => left - right);
  const at = (share: number) =>
    times[Math.min(times.length - 1, Math.floor(share * times.length))]!;
  return { throughput: (count / total) * 1000, p50: at(0.5), p99: at(0.99) };
}

const round = (value: number, digits = 2) => Number(value.toFixed(digits));
const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);

interface Driver {
  name: string;
  memory: MemoryStore;
  history: HistoryStore;
  keywordSearch?: PostgresMemoryStore['searchKeywords'];
  close(): Promise<void>;
}

async function openDrivers(services: ServiceUrls, root: string): Promise<Driver[]> {
  const drivers: Driver[] = [
    {
      name: 'file',
      memory: createFileMemoryStore({ root }),
      history: createFileHistoryStore({ root }),
      close: async () => {},
    },
  ];
  const schema = `ctxmem_bench_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  if (services.postgresUrl) {
    const stores: PostgresStores = createPostgresStores({
      connectionString: services.postgresUrl,
      schema,
    });
    await stores.migrate();
    drivers.push({
      name: 'postgres',
      memory: stores.memory,
      history: stores.history,
      keywordSearch: stores.memory.searchKeywords.bind(stores.memory),
      close: async () => {
        await stores.memory.remove(
          scope,
          (await stores.memory.list(scope, { includeSuperseded: true })).map((card) => card.id),
        );
        await stores.history.clear(scope);
        await stores.close();
      },
    });
  }
  if (services.redisUrl) {
    const stores: RedisStores = createRedisStores({
      url: services.redisUrl,
      prefix: `ctxmem-bench-${randomUUID().slice(0, 8)}`,
    });
    drivers.push({
      name: 'redis',
      memory: stores.memory,
      history: stores.history,
      close: async () => {
        await stores.memory.remove(
          scope,
          (await stores.memory.list(scope, { includeSuperseded: true })).map((card) => card.id),
        );
        await stores.history.clear(scope);
        await stores.close();
      },
    });
  }
  return drivers;
}

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
    const at = (share: number) =>
      times[Math.min(times.length - 1, Math.floor(share * times.length))]!;
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
      'add p50 (ms)': round(at(0.5)),
      'add p99 (ms)': round(at(0.99)),
      'writer CPU (ms/add)': round(sum(results.map((result) => result.cpu)) / (writers * each)),
      'server CPU (ms/add)': results.every((result) => result.serverCpu !== undefined)
        ? round(sum(results.map((result) => result.serverCpu!)) / (writers * each))
        : '',
    };
  } finally {
    await check.close();
  }
}

const SYLLABLES = 'ka ri mo tu se na lo vi pe da gu fe zo hi ba ne'.split(' ');
/** 4,096 distinct three-syllable words, so each word is in about 0.2% of the large scope's cards. */
const VOCABULARY = Array.from(
  { length: 16 ** 3 },
  (_, index) =>
    SYLLABLES[index % 16]! + SYLLABLES[Math.floor(index / 16) % 16]! + SYLLABLES[index >> 8]!,
);

/** A well-mixed hash (mulberry32) of a seed, in [0, 1). */
function mix(seed: number): number {
  let value = (seed + 0x6d2b79f5) | 0;
  value = Math.imul(value ^ (value >>> 15), value | 1);
  value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
  return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
}

const vocabularyWord = (seed: number) => VOCABULARY[Math.floor(mix(seed) * VOCABULARY.length)]!;

/** A sentence of 8 words drawn evenly from VOCABULARY. */
const largeScopeSentence = (seed: number) =>
  `Card ${seed}: ${Array.from({ length: 8 }, (_, word) => vocabularyWord(seed * 8 + word)).join(' ')}.`;

/** PostgreSQL's `searchKeywords` over one large scope, filled in batches of 1,000 cards. */
export async function largeScopeSearch(
  connectionString: string,
  cards: number,
  searches: number,
): Promise<BenchSection['rows'][number]> {
  const { Pool } = await loadPg();
  const pool = new Pool({ connectionString });
  const schema = `ctxmem_bench_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const stores = createPostgresStores({ pool, schema });
  await stores.migrate();
  const largeScope = { userId: 'bench-large' };
  try {
    const fillStart = performance.now();
    // Cards as `memory.add` stores them, inserted 10,000 at a time with one unnest statement:
    // what is measured is the search, and adding 100,000 cards one merge at a time is not it.
    const key = scopeKey(normalizeScope(largeScope));
    const now = new Date().toISOString();
    for (let start = 0; start < cards; start += 10_000) {
      const batch = Array.from({ length: Math.min(10_000, cards - start) }, (_, offset) => {
        const card: MemoryCard = {
          id: randomUUID(),
          content: largeScopeSentence(start + offset),
          type: 'todo',
          tags: [],
          createdAt: now,
          updatedAt: now,
          scope: largeScope,
        };
        return card;
      });
      await pool.query(
        `INSERT INTO "${schema}".memory_cards (scope_key, id, card, search_text, search, revision)
         SELECT $1, item.id, item.card, item.search_text, item.search::tsvector, 1
         FROM unnest($2::text[], $3::text[], $4::text[], $5::text[])
           WITH ORDINALITY AS item(id, card, search_text, search, ordinality)
         ORDER BY item.ordinality`,
        [
          key,
          batch.map((card) => card.id),
          batch.map(encodeCard),
          batch.map(cardSearchText),
          batch.map((card) => keywordVector(cardSearchText(card))),
        ],
      );
    }
    await pool.query(`INSERT INTO "${schema}".memory_scopes (scope_key, revision) VALUES ($1, 1)`, [
      key,
    ]);
    const fill = performance.now() - fillStart;
    // What autovacuum does within a minute of a bulk load: without statistics the planner
    // guesses a sequential scan over the fresh table.
    await pool.query(`ANALYZE "${schema}".memory_cards`);
    const query = (index: number) =>
      `${vocabularyWord(-1 - index)} ${vocabularyWord(-1_000_000 - index)}`;
    await stores.memory.searchKeywords(largeScope, query(0), 10);
    const matched = await stores.memory.searchKeywords(largeScope, query(0), cards);
    const search = await time(searches, (index) =>
      stores.memory.searchKeywords(largeScope, query(index), 10),
    );
    const cjk = await time(Math.min(searches, 50), () =>
      stores.memory.searchKeywords(largeScope, '机器学习', 10),
    );
    return {
      'cards in scope': cards,
      'fill (s)': round(fill / 1000, 1),
      'cards matching a query': matched.length,
      'search p50 (ms)': round(search.p50),
      'search p99 (ms)': round(search.p99),
      'CJK query, no match, p50 (ms)': round(cjk.p50),
    };
  } finally {
    await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
    await pool.end();
  }
}

export const run: BenchRun = async ({ quick }) => {
  const prefill = quick ? 200 : 2_000;
  const adds = quick ? 100 : 500;
  const searches = quick ? 100 : 300;
  const appends = quick ? 200 : 1_000;

  let services: ServiceUrls = await configuredServices();
  let started: StartedServices | undefined;
  if (!services.postgresUrl || !services.redisUrl) {
    started = await startServices();
    services = {
      postgresUrl: services.postgresUrl ?? started.postgresUrl,
      redisUrl: services.redisUrl ?? started.redisUrl,
      problems: started.problems,
    };
  }
  const root = await mkdtemp(join(tmpdir(), 'ctxmem-bench-drivers-'));
  const drivers = await openDrivers(services, root);
  const memoryRows: BenchSection['rows'] = [];
  const historyRows: BenchSection['rows'] = [];
  const writerRows: BenchSection['rows'] = [];
  const largeRows: BenchSection['rows'] = [];
  const writers = 8;
  const writerAdds = quick ? 25 : 125;
  const largeScopeCards = Number(
    process.env.CTXMEM_BENCH_LARGE_SCOPE ?? (quick ? 20_000 : 100_000),
  );
  try {
    for (const driver of drivers) {
      for (let start = 0; start < prefill; start += 250) {
        await driver.memory.add(
          scope,
          Array.from({ length: Math.min(250, prefill - start) }, (_, offset) => ({
            content: sentence(start + offset),
            type: 'todo' as const,
          })),
        );
      }
      const add = await time(adds, (index) =>
        driver.memory.add(scope, [{ content: sentence(1_000_000 + index), type: 'todo' }]),
      );
      const search = createMemorySearch({ store: driver.memory, mode: 'bm25' });
      await search.search(scope, 'warm up the index');
      const query = (index: number) =>
        `${WORDS[index % WORDS.length]} ${WORDS[(index * 7) % WORDS.length]}`;
      const bm25 = await time(searches, (index) =>
        search.search(scope, query(index), { topK: 10 }),
      );
      memoryRows.push({
        driver: driver.name,
        'cards in scope': prefill + adds,
        'add/s': round(add.throughput, 1),
        'add p50 (ms)': round(add.p50),
        'add p99 (ms)': round(add.p99),
        'search/s': round(bm25.throughput, 1),
        'search p50 (ms)': round(bm25.p50),
        'search p99 (ms)': round(bm25.p99),
      });
      if (driver.keywordSearch) {
        const keywordSearch = driver.keywordSearch;
        const keyword = await time(searches, (index) => keywordSearch(scope, query(index), 10));
        memoryRows.push({
          driver: `${driver.name} (tsvector searchKeywords)`,
          'cards in scope': prefill + adds,
          'add/s': '',
          'add p50 (ms)': '',
          'add p99 (ms)': '',
          'search/s': round(keyword.throughput, 1),
          'search p50 (ms)': round(keyword.p50),
          'search p99 (ms)': round(keyword.p99),
        });
      }
      const message = (index: number): Message => ({
        role: index % 2 === 0 ? 'user' : 'assistant',
        content: `${sentence(index)} ${'detail '.repeat(40)}`,
      });
      const append = await time(appends, (index) => driver.history.append(scope, [message(index)]));
      const read = await time(Math.min(searches, 50), (index) =>
        driver.history.read(scope, { from: index, to: index + 20 }),
      );
      historyRows.push({
        driver: driver.name,
        'append/s': round(append.throughput, 1),
        'append p50 (ms)': round(append.p50),
        'append p99 (ms)': round(append.p99),
        'read 20 p50 (ms)': round(read.p50),
        'read 20 p99 (ms)': round(read.p99),
      });
    }
    const namespace = `ctxmem_bench_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    writerRows.push(
      await manyWriters('file', join(root, 'writers'), namespace, writers, writerAdds),
    );
    if (services.postgresUrl) {
      const stores = createPostgresStores({
        connectionString: services.postgresUrl,
        schema: namespace,
      });
      await stores.migrate();
      await stores.close();
      writerRows.push(
        await manyWriters('postgres', services.postgresUrl, namespace, writers, writerAdds),
      );
    }
    if (services.redisUrl) {
      writerRows.push(
        await manyWriters('redis', services.redisUrl, namespace, writers, writerAdds),
      );
    }
    if (services.postgresUrl) {
      largeRows.push(await largeScopeSearch(services.postgresUrl, largeScopeCards, searches));
    }
  } finally {
    for (const driver of drivers) await driver.close();
    await rm(root, { recursive: true, force: true });
    await started?.stop();
  }
  const skipped = [
    services.postgresUrl ? undefined : 'PostgreSQL skipped: no server could be started.',
    services.redisUrl ? undefined : 'Redis skipped: no server could be started.',
  ].filter((note): note is string => note !== undefined);
  return [
    {
      title: 'Drivers: memory cards, add and search, one operation at a time',
      rows: memoryRows,
      notes: [
        `Every add de-duplicates against all current cards of the scope: the file store under a file lock with fsync; PostgreSQL and Redis merge into the scope's cards indexed in memory and commit in one round trip (a PL/pgSQL function, a Lua script) unless a card written since carries a key the merge looked up (driver-kit's conflict keys); other writers' cards are read when a key collides or the scope is listed. Search is core's BM25 search (createMemorySearch, mode bm25), which lists the scope's cards on every call; the tsvector row is PostgreSQL searching on the server through its GIN index. Servers on loopback; PostgreSQL runs with fsync=off as in the tests.`,
        ...skipped,
      ],
    },
    {
      title: 'Drivers: history append and range read',
      rows: historyRows,
      notes: ['One message per append; reads of 20 messages by index range.', ...skipped],
    },
    {
      title: `Drivers: ${writers} writers adding to one scope at once`,
      rows: writerRows,
      notes: [
        `${writers} writer processes (each with its own stores and connection, as ${writers} application instances would have), each adding ${writerAdds} cards one at a time to the same scope, all starting at one instant; adds/s counts every card over the time from that start to the last writer's end. Every add de-duplicates against the whole scope (PostgreSQL and Redis commit unless a card another writer stored since could change the merge, by driver-kit's conflict keys, so unrelated adds do not merge again, and a writer reads the others' cards only when a key collides). Writer CPU is process.cpuUsage() of the 8 writer processes over their adds; server CPU is the CPU of each writer's PostgreSQL backend (read from /proc, so only for a server on this machine), both summed and divided by the cards added. "cards stored" must equal "cards added" (nothing lost or merged away). Target of issue 14: >= 1,000 adds/s on PostgreSQL and Redis. A shared 2-core machine here: the ${writers} processes, the servers and other work share it.`,
        ...skipped,
      ],
    },
    {
      title: 'PostgreSQL: searchKeywords over one large scope',
      rows: largeRows,
      notes: [
        `The scope is filled with cards as memory.add stores them, 10,000 per unnest INSERT (fill time is that load, not adds); cards are 8 words drawn evenly from 4,096, queries two such words (about 0.4% of the cards match one), top 10 by ts_rank, through the GIN index on core-analyzed terms. Set CTXMEM_BENCH_LARGE_SCOPE for another size (issue 14's target: p50 <= 20 ms at 100,000 cards).`,
        ...skipped,
      ],
    },
  ];
};

if (process.argv[2] === '--writer') await writerProcess(JSON.parse(process.argv[3]!) as WriterJob);

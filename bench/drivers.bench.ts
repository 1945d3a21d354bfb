/**
 * The shared-store drivers against the file store: throughput and latency percentiles of adding
 * memory cards (each add de-duplicates against every current card of the scope), of searching
 * them (core's BM25 search over `list`, and PostgreSQL's own `tsvector` search), and of appending
 * to the history. PostgreSQL and Redis run on loopback servers: `CTXMEM_POSTGRES_URL` /
 * `CTXMEM_REDIS_URL`, a running `scripts/test-services.sh`, or temporary servers started here when
 * the binaries are installed; a driver without a server is skipped with a note.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HistoryStore, MemoryStore, Message } from '../packages/core/src/contracts/index.js';
import { createFileHistoryStore } from '../packages/core/src/history/index.js';
import { createFileMemoryStore } from '../packages/core/src/memory/index.js';
import { createMemorySearch } from '../packages/core/src/retrieval/index.js';
import {
  createPostgresStores,
  type PostgresMemoryStore,
  type PostgresStores,
} from '../packages/postgres/src/index.js';
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
        `Every add de-duplicates against all current cards of the scope (read, merge, write): the file store under a file lock with fsync, PostgreSQL in a transaction holding the scope's row lock, Redis with a compare-and-set script. Search is core's BM25 search (createMemorySearch, mode bm25), which lists the scope's cards on every call; the tsvector row is PostgreSQL searching on the server through its GIN index. Servers on loopback; PostgreSQL runs with fsync=off as in the tests.`,
        ...skipped,
      ],
    },
    {
      title: 'Drivers: history append and range read',
      rows: historyRows,
      notes: ['One message per append; reads of 20 messages by index range.', ...skipped],
    },
  ];
};

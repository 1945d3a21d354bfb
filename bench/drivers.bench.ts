/**
 * The shared-store drivers against the file store: throughput and latency percentiles of adding
 * memory cards (each add de-duplicates against every current card of the scope), of searching
 * them (core's BM25 search over `list`, and PostgreSQL's own `tsvector` search), and of appending
 * to the history; then 8 writers adding to one scope at once, and PostgreSQL's keyword search over a
 * large scope. PostgreSQL and Redis run on loopback servers: `CTXMEM_POSTGRES_URL` /
 * `CTXMEM_REDIS_URL`, a running `scripts/test-services.sh`, or temporary servers started here when
 * the binaries are installed; a driver without a server is skipped with a note. The writer
 * processes are in `many-writers.ts`, the large scope in `large-scope-search.ts`.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HistoryStore, MemoryStore } from '../packages/core/src/contracts/index.js';
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
import { largeScopeSearch } from './large-scope-search.js';
import { round, time } from './latency.js';
import { manyWriters } from './many-writers.js';
import { historyMessage, scope, sentence, WORDS } from './store-sentences.js';
import type { BenchRun, BenchSection } from './types.js';

interface Driver {
  name: string;
  memory: MemoryStore;
  history: HistoryStore;
  keywordSearch?: PostgresMemoryStore['searchKeywords'];
  close(): Promise<void>;
}

/** Removes the bench scope's cards and history from a shared server, then closes the stores. */
async function clearAndClose(stores: PostgresStores | RedisStores): Promise<void> {
  await stores.memory.remove(
    scope,
    (await stores.memory.list(scope, { includeSuperseded: true })).map((card) => card.id),
  );
  await stores.history.clear(scope);
  await stores.close();
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
      close: () => clearAndClose(stores),
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
      close: () => clearAndClose(stores),
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
  const writerRows: BenchSection['rows'] = [];
  const largeRows: BenchSection['rows'] = [];
  const writers = 8;
  const writerAdds = quick ? 25 : 125;
  /** Adds each writer keeps in flight in the second row of each driver. */
  const writerInFlight = 4;
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
      const append = await time(appends, (index) =>
        driver.history.append(scope, [historyMessage(index)]),
      );
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
    const writerTargets: Array<[Parameters<typeof manyWriters>[0], string | undefined]> = [
      ['file', join(root, 'writers')],
      ['postgres', services.postgresUrl],
      ['redis', services.redisUrl],
    ];
    for (const [driver, target] of writerTargets) {
      if (target === undefined) continue;
      if (driver === 'postgres') {
        const stores = createPostgresStores({ connectionString: target, schema: namespace });
        await stores.migrate();
        await stores.close();
      }
      // One writer adding as many cards first: what a shared scope costs the others.
      writerRows.push(await manyWriters(driver, target, namespace, 1, writers * writerAdds));
      for (const inFlight of [1, writerInFlight]) {
        writerRows.push(
          await manyWriters(driver, target, namespace, writers, writerAdds, inFlight),
        );
      }
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
      title: `Drivers: 1 and ${writers} writers adding to one scope at once`,
      rows: writerRows,
      notes: [
        `${writers} writer processes (each with its own stores and connection, as ${writers} application instances would have), each adding ${writerAdds} cards to the same scope (after one writer adding all ${writers * writerAdds} alone, for comparison): one at a time, then ${writerInFlight} at a time as an instance serving ${writerInFlight} requests of the scope at once (PostgreSQL and Redis commit the adds queued in one process as one, driver-kit's createScopeQueue). Each first gets ready as a running instance is (connected, the scope loaded, its code warmed by 200 adds to a scope of its own, which it then removes), and all start together once the last is ready; adds/s counts every card over the time from that start to the last writer's end. Every add de-duplicates against the whole scope (PostgreSQL and Redis commit unless a card another writer stored since could change the merge, by driver-kit's conflict keys, so unrelated adds do not merge again, and a writer reads the others' cards only when a key collides). Writer CPU is process.cpuUsage() of the 8 writer processes over their adds; server CPU is, for PostgreSQL, the CPU of each writer's backend (read from /proc, so only for a server on this machine) and, for Redis, the whole server's (INFO cpu) over the run, each summed and divided by the cards added. "cards stored" must equal "cards added" (nothing lost or merged away). Target of issue 14: >= 1,000 adds/s on PostgreSQL and Redis. A shared 2-core machine here: the ${writers} processes, the servers and other work share it.`,
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

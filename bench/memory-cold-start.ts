/**
 * `ctxmem memory search` from a file store in a new process (part of `stores.bench.ts`): the
 * search's own start-up timed in this process, then the whole command in child processes (Node
 * start-up and module loading included), next to `ctxmem --help` run the same way.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Scope } from '../packages/core/src/contracts/index.js';
import { createFileMemoryStore } from '../packages/core/src/memory/index.js';
import { createMemorySearch } from '../packages/core/src/retrieval/index.js';
import { ms } from './latency.js';
import type { BenchSection } from './types.js';

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
/** The built CLI (`pnpm --filter @ctxmem/cli build`): the command a user runs. */
const CLI = fileURLToPath(new URL('../packages/cli/dist/bin.js', import.meta.url));

export interface ColdStartOptions {
  scope: Required<Pick<Scope, 'userId' | 'sessionId'>>;
  query: string;
  /** Child processes per command (the median is reported). */
  runs: number;
}

/**
 * What `ctxmem memory search` does in a new process, timed in this one: open the file store, sync
 * a new memory search (load the log, index, embed), answer one search. Twice: the first run
 * builds the indexes; the second starts from what the first saved beside the log, if anything.
 * Then the whole command, `runs` times, in child processes.
 */
export async function coldStartSections(
  fileRoots: Map<number, string>,
  { scope, query, runs }: ColdStartOptions,
): Promise<BenchSection[]> {
  const rows: BenchSection['rows'] = [];
  const processRows: BenchSection['rows'] = [];
  for (const root of fileRoots.values()) {
    let cards = 0;
    for (const run of ['first process (indexes built)', 'next process (saved indexes)']) {
      // As `ctxmem memory search` does: no listing of the store; the search's first sync reads
      // what it needs (all of the log the first time; the saved indexes and the log's new lines
      // the next time).
      const store = createFileMemoryStore({ root });
      const search = createMemorySearch({ store, timeoutMs: 60_000 });
      const syncStart = performance.now();
      const report = await search.sync(scope);
      const sync = performance.now() - syncStart;
      const searchStart = performance.now();
      await search.search(scope, query, { topK: 5 });
      const first = performance.now() - searchStart;
      cards = report.cards;
      rows.push({
        run,
        'cards in scope': report.cards,
        'sync: read + index + embed, or load (ms)': ms(sync),
        'first search (ms)': ms(first),
        'total (ms)': ms(sync + first),
      });
    }
    if (!existsSync(CLI)) continue;
    const search = [
      ...['memory', 'search', '--store', root, '--user', scope.userId],
      ...['--session', scope.sessionId, '--query', query],
    ];
    for (const [command, args] of [
      ['ctxmem memory search (saved indexes)', search],
      ['ctxmem --help', ['--help']],
    ] as const) {
      const times: number[] = [];
      const load = loadavg()[0]!;
      for (let run = 0; run < runs; run++) {
        const start = performance.now();
        const child = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
        times.push(performance.now() - start);
        if (child.status !== 0) throw new Error(`${command} failed: ${child.stderr}`);
      }
      processRows.push({
        command,
        'cards in scope': cards,
        'wall median (ms)': ms(median(times)),
        'wall min (ms)': ms(Math.min(...times)),
        runs,
        'load average (1 min)': Number(load.toFixed(2)),
      });
    }
  }
  const sections: BenchSection[] = [
    {
      title:
        'Memory search from a file store in a new process (the path of `ctxmem memory search`)',
      rows,
      notes: [
        'Timed in this process (a fresh store and search each run, the store files already in the OS cache); Node start-up and module loading come on top (see the next table). First process: the log is parsed, BM25 built, every card embedded, and the indexes saved (card ids, types and times, BM25 postings as typed arrays, the cards in checked blocks, the position in the log). Next process: the saved file is adopted as it is: the small sections are read and checked, no card is read, parsed or made into an object until a search uses it, no text is analysed, only log lines appended since are read, and with the hashing embedder above 5,000 cards no vectors are saved or read: the query’s BM25 candidates are embedded on demand.',
      ],
    },
  ];
  if (processRows.length > 0) {
    sections.push({
      title: 'Whole-process `ctxmem memory search` (child processes, saved indexes)',
      rows: processRows,
      notes: [
        'Target: a whole-process `ctxmem memory search` <= 1 s at 100,000 cards, on a quiet machine. `node packages/cli/dist/bin.js` (build it first), the store of the rows above after its indexes were saved; wall time of the whole child process, Node start-up and module loading included. `ctxmem --help` is the floor any command pays. The load average is read before the runs: on a shared machine the wall time grows with it.',
      ],
    });
  }
  return sections;
}

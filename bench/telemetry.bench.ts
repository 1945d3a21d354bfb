/**
 * `pnpm bench telemetry`: what OpenTelemetry spans cost `prepare`. One tool-using conversation
 * (history store, memory search, compactions on the way) is prepared call by call with the same
 * manager options but its `telemetry`: off (the default), on with no SDK behind the tracer (the
 * API's no-op tracer), and on with an SDK recording every span in memory (`BasicTracerProvider`,
 * `SimpleSpanProcessor`, `InMemorySpanExporter`); every process registers the AsyncLocalStorage
 * context manager, as an app with OpenTelemetry does. The three share one process
 * (`telemetry-conversation.ts`) and take turns conversation by conversation, measured in CPU time
 * (`process.cpuUsage`), so the machine's other load falls on all alike.
 *
 * `CTXMEM_BENCH_BASELINE_CORE=<an older packages/core/src/index.ts>` adds the code before the
 * telemetry option, in a process of its own after each (two copies of core in one process share,
 * and so slow down, their dependencies' code: the older one measured 35% slower that way).
 * Extract it with `git archive <commit> packages/core | tar -x -C <folder>` and link its
 * `node_modules` to this checkout's `packages/core/node_modules`.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { BenchRun } from './types.js';

const child = fileURLToPath(new URL('./telemetry-conversation.ts', import.meta.url));

type Mode = 'off' | 'noop' | 'sdk';

interface ChildResult {
  samples: Record<string, number[]>;
  spans: Record<string, number>;
  prepares: number;
}

async function runChild(
  modes: readonly Mode[],
  turns: number,
  conversations: number,
  core?: string,
): Promise<ChildResult> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', child, modes.join(','), String(turns), String(conversations)],
    { env: { ...process.env, ...(core ? { CTXMEM_BENCH_CORE: core } : {}) }, maxBuffer: 1 << 20 },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as ChildResult;
}

/** The value at `share` of the sorted samples (0.5: the median). */
const quantile = (values: readonly number[], share: number) => {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))]!;
};

const NAMES: Record<Mode, string> = {
  off: 'telemetry off (default)',
  noop: 'on, no SDK (no-op tracer)',
  sdk: 'on, SDK + in-memory exporter',
};
const BEFORE = 'before the telemetry option';

export const run: BenchRun = async ({ quick }) => {
  const turns = quick ? 30 : 60;
  const rounds = quick ? 2 : 6;
  const conversations = quick ? 3 : 6;
  const baseline = process.env.CTXMEM_BENCH_BASELINE_CORE;
  const samples = new Map<string, number[]>();
  const spans = new Map<string, number>();
  const keep = (name: string, values: readonly number[], count: number) => {
    samples.set(name, [...(samples.get(name) ?? []), ...values]);
    spans.set(name, count);
  };
  let prepares = 0;
  for (let index = 0; index < rounds; index++) {
    // The three modes share one process (one copy of core), taking turns conversation by
    // conversation; the older core needs a process of its own, run right after.
    const result = await runChild(['off', 'noop', 'sdk'], turns, conversations);
    for (const mode of ['off', 'noop', 'sdk'] as const) {
      keep(NAMES[mode], result.samples[mode]!, result.spans[mode]!);
    }
    prepares = result.prepares;
    if (baseline) {
      const older = await runChild(['off'], turns, conversations, baseline);
      keep(BEFORE, older.samples.off!, 0);
    }
  }

  const reference = quantile(samples.get(NAMES.off)!, 0.5);
  const micros = (milliseconds: number) => Math.round(milliseconds * 1000);
  const names = [...(baseline ? [BEFORE] : []), NAMES.off, NAMES.noop, NAMES.sdk];
  return [
    {
      title: 'Telemetry: CPU time of prepare, tracing off and on',
      rows: names.map((name) => {
        const values = samples.get(name)!;
        const perPrepare = quantile(values, 0.5);
        return {
          variant: name,
          'CPU µs per prepare (median)': micros(perPrepare),
          'p25–p75': `${micros(quantile(values, 0.25))}–${micros(quantile(values, 0.75))}`,
          'vs off': `${perPrepare >= reference ? '+' : ''}${(((perPrepare - reference) / reference) * 100).toFixed(1)}%`,
          'spans per conversation': spans.get(name) ?? 0,
        };
      }),
      notes: [
        `${prepares} prepares per conversation (${turns} tool-loop turns, two calls each, history store and memory search on); ${rounds} processes, each running ${conversations} conversations per mode after a warm-up, the modes taking turns${baseline ? ', each followed by a process of the older core' : ''}; process CPU time (GC included), median and quartiles of the conversations. On a loaded machine, compare on a quiet one.`,
        'Off, the stores, search and model calls are not wrapped: `prepare` runs the code it ran before the option, plus one check.',
      ],
    },
  ];
};

/**
 * `pnpm bench telemetry`: what OpenTelemetry spans cost `prepare`. One tool-using conversation
 * (history store, memory search, compactions on the way) is prepared call by call with the same
 * manager options but its `telemetry`: off (the default), on with no SDK behind the tracer (the
 * API's no-op tracer), and on with an SDK recording every span in memory (`BasicTracerProvider`,
 * `SimpleSpanProcessor`, `InMemorySpanExporter`); every process registers the AsyncLocalStorage
 * context manager, as an app with OpenTelemetry does. Each variant runs in its own process
 * (`telemetry-conversation.ts`, one copy of core each, so no variant's JIT state leaks into
 * another's), the variants alternate round by round, and each is measured in CPU time
 * (`process.cpuUsage`), so the machine's other load falls on all alike.
 *
 * `CTXMEM_BENCH_BASELINE_CORE=<an older packages/core/src/index.ts>` adds the code before the
 * telemetry option as a variant (extract it with `git archive <commit> packages/core | tar -x -C
 * <folder>` and link its `node_modules` to this checkout's `packages/core/node_modules`).
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { BenchRun } from './types.js';

const child = fileURLToPath(new URL('./telemetry-conversation.ts', import.meta.url));

interface Variant {
  name: string;
  mode: 'off' | 'noop' | 'sdk';
  core?: string;
}

interface ChildResult {
  samples: number[];
  spans: number;
  prepares: number;
}

async function runChild(variant: Variant, turns: number, conversations: number) {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', child, variant.mode, String(turns), String(conversations)],
    {
      env: { ...process.env, ...(variant.core ? { CTXMEM_BENCH_CORE: variant.core } : {}) },
      maxBuffer: 1 << 20,
    },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as ChildResult;
}

/** The value at `share` of the sorted samples (0.5: the median). */
const quantile = (values: readonly number[], share: number) => {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))]!;
};

export const run: BenchRun = async ({ quick }) => {
  const turns = quick ? 30 : 60;
  const rounds = quick ? 3 : 9;
  const conversations = quick ? 3 : 5;
  const variants: Variant[] = [];
  const baseline = process.env.CTXMEM_BENCH_BASELINE_CORE;
  if (baseline) variants.push({ name: 'before the telemetry option', mode: 'off', core: baseline });
  variants.push(
    { name: 'telemetry off (default)', mode: 'off' },
    { name: 'on, no SDK (no-op tracer)', mode: 'noop' },
    { name: 'on, SDK + in-memory exporter', mode: 'sdk' },
  );

  const samples = new Map(variants.map((variant) => [variant.name, [] as number[]]));
  const spans = new Map<string, number>();
  let prepares = 0;
  for (let index = 0; index < rounds; index++) {
    // Rotate the order, so no variant always runs right after the same one.
    for (let offset = 0; offset < variants.length; offset++) {
      const variant = variants[(index + offset) % variants.length]!;
      const result = await runChild(variant, turns, conversations);
      samples.get(variant.name)!.push(...result.samples);
      spans.set(variant.name, result.spans);
      prepares = result.prepares;
    }
  }

  const reference = quantile(samples.get('telemetry off (default)')!, 0.5);
  const micros = (milliseconds: number) => Math.round(milliseconds * 1000);
  return [
    {
      title: 'Telemetry: CPU time of prepare, tracing off and on',
      rows: variants.map((variant) => {
        const values = samples.get(variant.name)!;
        const perPrepare = quantile(values, 0.5);
        return {
          variant: variant.name,
          'CPU µs per prepare (median)': micros(perPrepare),
          'p25–p75': `${micros(quantile(values, 0.25))}–${micros(quantile(values, 0.75))}`,
          'vs off': `${perPrepare >= reference ? '+' : ''}${(((perPrepare - reference) / reference) * 100).toFixed(1)}%`,
          'spans per conversation': spans.get(variant.name) ?? 0,
        };
      }),
      notes: [
        `${prepares} prepares per conversation (${turns} tool-loop turns, two calls each, history store and memory search on); ${rounds} rounds of one process per variant, ${conversations} conversations each after a warm-up; process CPU time (GC included), median and quartiles. On a loaded machine the quartiles overlap by more than small differences: compare on a quiet one.`,
        'Off, the stores, search and model calls are not wrapped: `prepare` runs the code it ran before the option, plus one check.',
      ],
    },
  ];
};

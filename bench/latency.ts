/**
 * Throughput and latency percentiles of operations run one at a time (`drivers.bench.ts`,
 * `many-writers.ts`, `large-scope-search.ts`), and the rounding of the figures the benches print.
 */

export interface Timing {
  /** Operations per second, one at a time. */
  throughput: number;
  p50: number;
  p99: number;
}

/** The value at `share` (0–1) of ascending `sorted` values. */
export const percentileOf = (sorted: readonly number[], share: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))]!;

/** Runs `operation` `count` times in turn, timing each run. */
export async function time(
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
  return {
    throughput: (count / total) * 1000,
    p50: percentileOf(times, 0.5),
    p99: percentileOf(times, 0.99),
  };
}

export const round = (value: number, digits = 2) => Number(value.toFixed(digits));
export const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);

/** Milliseconds to the microsecond, as the store tables print them. */
export const ms = (value: number) => round(value, 3);

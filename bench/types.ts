/** One section of the `pnpm bench` report. */
export interface BenchSection {
  title: string;
  /** Table rows; every row has the same keys. */
  rows: Array<Record<string, string | number>>;
  /** Lines printed under the table: targets, how to read it, caveats. */
  notes?: string[];
}

/** Each `bench/*.bench.ts` file exports `run` and is picked up by `bench/run.ts`. */
export type BenchRun = (options: { quick: boolean }) => Promise<BenchSection[]>;

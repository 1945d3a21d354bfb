import { bar, formatNumber } from './format.js';

/**
 * How progress is shown: redrawn in place on a terminal, as a few plain lines when asked for
 * without one (a CI log keeps every `\r` redraw as garbage), or not at all.
 */
export type ProgressStyle = 'bar' | 'lines' | 'off';

export interface Progress {
  /** `done` of the total are finished. */
  update(done: number): void;
  /** Removes the bar, so the next output starts on a clean line. */
  finish(): void;
}

export interface ProgressOptions {
  stream: { write(text: string): unknown };
  total: number;
  /** What is being counted, for example `adding cards`. */
  label: string;
  style: ProgressStyle;
  /**
   * Cells of the bar.
   * @default 30
   */
  width?: number;
}

/** Below this many items a progress display is noise: the command is done in a blink. */
export const PROGRESS_THRESHOLD = 200;

/**
 * Which style to use: `--progress` forces it (plain lines without a terminal); otherwise a bar
 * only on a terminal, for enough items, and never under `CI` or `TERM=dumb`.
 */
export function chooseProgressStyle({
  stream,
  env,
  forced,
  total,
}: {
  stream: { isTTY?: boolean };
  env: Readonly<Record<string, string | undefined>>;
  forced: boolean;
  total: number;
}): ProgressStyle {
  const terminal = stream.isTTY === true && env.TERM !== 'dumb';
  if (forced) return terminal ? 'bar' : 'lines';
  const ci = env.CI !== undefined && env.CI !== '' && env.CI !== 'false' && env.CI !== '0';
  return terminal && !ci && total >= PROGRESS_THRESHOLD ? 'bar' : 'off';
}

export function createProgress({
  stream,
  total,
  label,
  style,
  width = 30,
}: ProgressOptions): Progress {
  if (style === 'off' || total <= 0) return { update() {}, finish() {} };
  let shown = false;
  // Plain lines are printed at each tenth, so a log gets at most ten of them.
  let lastTenth = -1;
  const counts = (done: number) =>
    `${formatNumber(done)}/${formatNumber(total)} (${Math.floor((done / total) * 100)}%)`;
  return {
    update(done) {
      if (style === 'bar') {
        const cells = bar(done, total, width);
        stream.write(`\r${label} ${cells}${' '.repeat(width - [...cells].length)} ${counts(done)}`);
        shown = true;
        return;
      }
      const tenth = Math.floor((done / total) * 10);
      if (tenth === lastTenth) return;
      lastTenth = tenth;
      stream.write(`${label}: ${counts(done)}\n`);
    },
    finish() {
      // Erase the bar's line instead of leaving a finished bar above the summary.
      if (shown) stream.write('\r\u001b[2K');
      shown = false;
    },
  };
}

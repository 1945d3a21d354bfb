/**
 * Progress on stderr for long work (bulk memory adds, compaction of large bodies, index builds):
 * redrawn in place on a terminal, silent when stderr is not a terminal, under `CI`, with
 * `TERM=dumb` and with `--quiet`.
 */
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

export interface ChooseProgressStyleOptions {
  stream: { isTTY?: boolean };
  env: Readonly<Record<string, string | undefined>>;
  /** `--progress`: show it even without a terminal, as plain lines. @default false */
  forced?: boolean;
  /** `--quiet`: never show it, whatever else says. @default false */
  quiet?: boolean;
  /** How many items the work has; below `threshold` it is done too fast to need progress. */
  total: number;
  /** @default PROGRESS_THRESHOLD */
  threshold?: number;
}

/**
 * Which style to use: `--quiet` turns it off, `--progress` forces it (plain lines without a
 * terminal); otherwise a bar only on a terminal, for enough items, and never under `CI` or
 * `TERM=dumb`.
 */
export function chooseProgressStyle({
  stream,
  env,
  forced = false,
  quiet = false,
  total,
  threshold = PROGRESS_THRESHOLD,
}: ChooseProgressStyleOptions): ProgressStyle {
  if (quiet) return 'off';
  const terminal = stream.isTTY === true && env.TERM !== 'dumb';
  if (forced) return terminal ? 'bar' : 'lines';
  const ci = env.CI !== undefined && env.CI !== '' && env.CI !== 'false' && env.CI !== '0';
  return terminal && !ci && total >= threshold ? 'bar' : 'off';
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

/** A status line for work whose size is not known ahead: each `show` replaces the last. */
export interface Activity {
  show(text: string): void;
  /** Removes the line, so the next output starts on a clean line. */
  finish(): void;
}

/**
 * A one-line status (`compacting stdin: summarizing, call 3`) redrawn in place with the `bar`
 * style, printed as lines with `lines` (each distinct text once), nothing with `off`.
 */
export function createActivity({
  stream,
  label,
  style,
}: {
  stream: { write(text: string): unknown };
  label: string;
  style: ProgressStyle;
}): Activity {
  if (style === 'off') return { show() {}, finish() {} };
  let shown = false;
  let last: string | undefined;
  return {
    show(text) {
      if (text === last) return;
      last = text;
      if (style === 'lines') {
        stream.write(`${label}: ${text}\n`);
        return;
      }
      // Clear the line first: a shorter text would leave the end of the longer one behind.
      stream.write(`\r\u001b[2K${label}: ${text}`);
      shown = true;
    },
    finish() {
      if (shown) stream.write('\r\u001b[2K');
      shown = false;
    },
  };
}

/**
 * Child processes for the crash and multi-process tests: runs a fixture with its job as JSON in
 * `argv[2]` and collects what it prints, line by line. A fixture is best passed as the bundle
 * `bundledFixture` makes (plain `node`, a quarter of tsx's start-up); a `.ts` path still runs with
 * `node --import tsx` from the repository root (tsx maps `@ctxmem/*` to the sources through
 * tsconfig.json).
 *
 * Processes that must act at the same moment print `ready` and wait for `release()` (a `go` line
 * on their standard input, see `released` in core's test kit), instead of sleeping until a start
 * time guessed in advance: the guess is too short on a loaded machine and wasted time on an idle
 * one.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

export interface WriterProcess {
  child: ChildProcess;
  /** Complete stdout lines so far. */
  lines: string[];
  /**
   * Resolves when a line equal to `text` (or matching it) has been printed; rejects if the
   * process exits first.
   */
  waitFor(text: string | RegExp): Promise<void>;
  /** Writes the `go` line a fixture waiting with `released()` starts on; once. */
  release(): void;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  /** What the process wrote to stderr so far. */
  errors(): string;
}

export function startWriter(fixture: string, job: Record<string, unknown>): WriterProcess {
  const loader = fixture.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const child = spawn(process.execPath, [...loader, fixture, JSON.stringify(job)], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  // A child killed or finished before its release must not fail the test with EPIPE.
  child.stdin!.on('error', () => {});
  const lines: string[] = [];
  const waiters: Array<{ test: (line: string) => boolean; resolve: () => void }> = [];
  let buffered = '';
  let errors = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    const parts = buffered.split('\n');
    buffered = parts.pop()!;
    for (const line of parts) {
      lines.push(line);
      for (const waiter of waiters.filter((candidate) => candidate.test(line))) waiter.resolve();
    }
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    errors += chunk;
  });
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      child.stdin!.destroy();
      resolve(code);
    }),
  );
  let releasedOnce = false;
  return {
    child,
    lines,
    exited,
    errors: () => errors,
    release() {
      if (releasedOnce) return;
      releasedOnce = true;
      child.stdin!.end('go\n');
    },
    waitFor: (text) => {
      const test = (line: string) => (typeof text === 'string' ? line === text : text.test(line));
      return new Promise<void>((resolve, reject) => {
        if (lines.some(test)) return resolve();
        waiters.push({ test, resolve });
        exited.then(() => {
          if (!lines.some(test)) {
            reject(new Error(`the process exited before printing "${text}"; stderr: ${errors}`));
          }
        });
      });
    },
  };
}

/** Waits until every writer printed `ready`, then releases them all at once. */
export async function releaseTogether(writers: readonly WriterProcess[]): Promise<void> {
  await Promise.all(writers.map((writer) => writer.waitFor('ready')));
  for (const writer of writers) writer.release();
}

/** Lines printed after `prefix `, without the prefix. */
export function linesAfter(writer: WriterProcess, prefix: string): string[] {
  return writer.lines
    .filter((line) => line.startsWith(`${prefix} `))
    .map((line) => line.slice(prefix.length + 1));
}

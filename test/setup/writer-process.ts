/**
 * Child processes for the drivers' multi-process tests: runs a fixture with
 * `node --import tsx <fixture> '<job json>'` from the repository root (so tsx maps `@ctxmem/core`
 * to its sources through tsconfig.json) and collects what it prints, line by line.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

export interface WriterProcess {
  child: ChildProcess;
  /** Complete stdout lines so far. */
  lines: string[];
  /** Resolves when a line equal to `text` has been printed; rejects if the process exits first. */
  waitFor(text: string): Promise<void>;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  /** What the process wrote to stderr so far. */
  errors(): string;
}

export function startWriter(fixture: string, job: Record<string, unknown>): WriterProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', fixture, JSON.stringify(job)], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  const lines: string[] = [];
  const waiters: Array<{ text: string; resolve: () => void }> = [];
  let buffered = '';
  let errors = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    const parts = buffered.split('\n');
    buffered = parts.pop()!;
    for (const line of parts) {
      lines.push(line);
      for (const waiter of waiters.filter((candidate) => candidate.text === line)) waiter.resolve();
    }
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    errors += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    lines,
    exited,
    errors: () => errors,
    waitFor: (text) =>
      new Promise<void>((resolve, reject) => {
        if (lines.includes(text)) return resolve();
        waiters.push({ text, resolve });
        exited.then(() => {
          if (!lines.includes(text)) {
            reject(new Error(`the process exited before printing "${text}"; stderr: ${errors}`));
          }
        });
      }),
  };
}

/** Lines printed after `prefix `, without the prefix. */
export function linesAfter(writer: WriterProcess, prefix: string): string[] {
  return writer.lines
    .filter((line) => line.startsWith(`${prefix} `))
    .map((line) => line.slice(prefix.length + 1));
}

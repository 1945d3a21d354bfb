import { setTimeout as sleep } from 'node:timers/promises';

/** What `promise` rejects with; throws when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('Expected the promise to reject.');
}

/** Waits until `check` holds, polling every 25 ms; throws naming `what` after `timeoutMs`. */
export async function until(
  check: () => Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}.`);
    await sleep(25);
  }
}

/**
 * The uncaught exceptions (their messages) raised while `work` runs and for 200 ms after, while
 * sockets deliver their close and error events: a fault test expects none.
 */
export async function withoutUncaughtErrors(work: () => Promise<void>): Promise<string[]> {
  const uncaught: string[] = [];
  const collect = (error: unknown) => {
    uncaught.push(error instanceof Error ? error.message : String(error));
  };
  process.on('uncaughtException', collect);
  try {
    await work();
    await sleep(200);
  } finally {
    process.off('uncaughtException', collect);
  }
  return uncaught;
}

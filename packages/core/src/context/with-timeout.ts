/**
 * Runs `task` with an abort signal that fires after `timeoutMs` (or when `parent` aborts), and
 * rejects at that moment even if the task ignores the signal: the caller never waits longer, and a
 * task that honours the signal stops its work (an HTTP request is cancelled, not abandoned).
 */
export function withTimeout<Result>(
  task: (abortSignal: AbortSignal) => Promise<Result>,
  timeoutMs: number,
  parent?: AbortSignal,
): Promise<Result> {
  const controller = new AbortController();
  const onParentAbort = () => controller.abort(parent?.reason);
  parent?.addEventListener('abort', onParentAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new Error(`timed out after ${timeoutMs} ms`);
      controller.abort(error);
      reject(error);
    }, timeoutMs);
  });
  return Promise.race([task(controller.signal), timeout]).finally(() => {
    clearTimeout(timer);
    parent?.removeEventListener('abort', onParentAbort);
  });
}

/** The message of an error for an event, whatever was thrown. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

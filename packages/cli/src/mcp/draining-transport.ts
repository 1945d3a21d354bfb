import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';

/** A transport that knows which requests it has received and not answered yet. */
export interface DrainingTransport extends Transport {
  /**
   * Resolves once every request received so far has been answered, or after `timeoutMs`. A client
   * that writes its requests and closes stdin still gets every answer; closing the server before
   * would abort them.
   */
  drained(timeoutMs: number): Promise<void>;
}

/** Wraps `inner` (whose callbacks it takes over) to count the requests still unanswered. */
export function createDrainingTransport(inner: Transport): DrainingTransport {
  const pending = new Set<RequestId>();
  let waiting: Array<() => void> = [];
  const settle = () => {
    if (pending.size > 0) return;
    for (const resolve of waiting) resolve();
    waiting = [];
  };
  const transport: DrainingTransport = {
    start: () => inner.start(),
    close: () => inner.close(),
    async send(message, options) {
      try {
        await inner.send(message, options);
      } finally {
        // A response (a result or an error) answers the request of its id.
        if (!('method' in message) && 'id' in message && message.id !== undefined) {
          pending.delete(message.id);
          settle();
        }
      }
    },
    drained(timeoutMs) {
      if (pending.size === 0) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        timer.unref();
        waiting.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
  inner.onclose = () => transport.onclose?.();
  inner.onerror = (error) => transport.onerror?.(error);
  inner.onmessage = (message, extra) => {
    if ('method' in message && 'id' in message) pending.add(message.id);
    transport.onmessage?.(message, extra);
  };
  return transport;
}

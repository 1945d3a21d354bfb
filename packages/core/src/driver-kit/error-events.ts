/** The EventEmitter side of a database client or pool, which the drivers' own types leave out. */
export interface ErrorEventEmitter {
  on(event: 'error', listener: (error: unknown) => void): unknown;
  removeListener(event: 'error', listener: (error: unknown) => void): unknown;
  listenerCount(event: 'error'): number;
}

export function isErrorEventEmitter(value: unknown): value is ErrorEventEmitter {
  const candidate = value as Partial<ErrorEventEmitter> | null;
  return (
    typeof candidate?.on === 'function' &&
    typeof candidate.removeListener === 'function' &&
    typeof candidate.listenerCount === 'function'
  );
}

function ignoreErrorEvent(): void {
  // See guardErrorEvents: the calls the error affects reject by themselves.
}

/**
 * Keeps a client's or pool's `'error'` events from ending the process. Database clients emit one
 * when a connection dies outside any call (the server restarted, an administrator killed it, a
 * proxy closed it); with no listener, Node turns it into an uncaught exception. The client drops
 * or reconnects that connection by itself, and every call the loss affects rejects on its own (and
 * reaches the caller as a `StorageError`), so the event itself needs no handling.
 *
 * Always added to a client the driver opened (`owned`); added to a given one only when it has no
 * `'error'` listener, since the application may already log these. Anything without the
 * EventEmitter methods is left alone.
 */
export function guardErrorEvents(emitter: unknown, owned: boolean): void {
  if (!isErrorEventEmitter(emitter)) return;
  if (owned || emitter.listenerCount('error') === 0) emitter.on('error', ignoreErrorEvent);
}

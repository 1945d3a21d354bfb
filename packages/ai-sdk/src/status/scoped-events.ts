import { type CtxmemEvent, type EventListener, type Scope, scopeKey } from '@ctxmem/core';

/** Where a request subscribes to its conversation's events: the middleware is one. */
export interface ContextEventSource {
  /**
   * Calls `listener` with the events of the conversation `scope` (the scope a call's
   * `providerOptions.ctxmem` or the `scope` option gives) until the returned function is called.
   * Events of other scopes never reach it.
   */
  subscribe(scope: Scope, listener: EventListener): () => void;
}

/**
 * The manager's events, handed to the app's own listener and to the subscribers of each event's
 * scope. A listener that throws is left out of that event, never fails ctxmem's call.
 */
export function createScopedEvents(onEvent: EventListener | undefined) {
  const subscribers = new Map<string, Set<EventListener>>();

  function dispatch(event: CtxmemEvent): void {
    onEvent?.(event);
    if (subscribers.size === 0) return;
    const listeners = subscribers.get(scopeKey(event.scope));
    if (!listeners) return;
    for (const listener of [...listeners]) {
      try {
        listener(event);
      } catch {
        // A subscriber's failure (a closed stream, say) is its own.
      }
    }
  }

  function subscribe(scope: Scope, listener: EventListener): () => void {
    const key = scopeKey(scope);
    let listeners = subscribers.get(key);
    if (!listeners) {
      listeners = new Set();
      subscribers.set(key, listeners);
    }
    // A wrapper per subscription, so the same function can subscribe twice and leave once each.
    const entry: EventListener = (event) => listener(event);
    listeners.add(entry);
    return () => {
      listeners.delete(entry);
      if (listeners.size === 0 && subscribers.get(key) === listeners) subscribers.delete(key);
    };
  }

  return { dispatch, subscribe };
}

import type { Message, TokenCounter } from '../contracts/index.js';

/**
 * Wraps a counter with a per-message cache keyed on object identity. Messages are immutable
 * values in ctxmem, so a message object always has the same count; strategies re-count the same
 * untouched messages many times while they search for a cut.
 */
export function withMessageCache(counter: TokenCounter): TokenCounter {
  const cache = new WeakMap<Message, number>();
  const countMessage = (message: Message): number => {
    let tokens = cache.get(message);
    if (tokens === undefined) {
      tokens = counter.countMessage(message);
      cache.set(message, tokens);
    }
    return tokens;
  };
  return {
    name: counter.name,
    promptOverhead: counter.promptOverhead,
    countText: (text) => counter.countText(text),
    countMessage,
    countMessages(messages) {
      let total = counter.promptOverhead;
      for (const message of messages) total += countMessage(message);
      return total;
    },
  };
}

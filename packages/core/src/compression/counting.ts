import type { Message, TokenCounter } from '../contracts/index.js';
import { boundedCounter } from '../tokens/index.js';

/** A compaction's counter: see `withMessageCache`. */
export interface CompactionCounter extends TokenCounter {
  /** Whether a message was counted by its floor (surely over the budget) instead of exactly. */
  readonly countedByFloor: boolean;
}

/**
 * Wraps a counter with a per-message cache keyed on object identity. Messages are immutable
 * values in ctxmem, so a message object always has the same count; strategies re-count the same
 * untouched messages many times while they search for a cut.
 *
 * Messages are counted within `budgetTokens` (see `boundedCounter`): one surely over the budget
 * counts as its floor, so a 50 MB tool result costs one pass over its characters, not BPE over
 * millions of tokens, while every decision (over the target or the budget?) is the one exact counts
 * would make. Texts (`countText`) are always counted exactly.
 */
export function withMessageCache(counter: TokenCounter, budgetTokens: number): CompactionCounter {
  const bounded = boundedCounter(counter, budgetTokens);
  const cache = new WeakMap<Message, number>();
  const countMessage = (message: Message): number => {
    let tokens = cache.get(message);
    if (tokens === undefined) {
      tokens = bounded.countMessage(message);
      cache.set(message, tokens);
    }
    return tokens;
  };
  return {
    name: counter.name,
    promptOverhead: counter.promptOverhead,
    get countedByFloor() {
      return bounded.countedByFloor;
    },
    countText: (text) => counter.countText(text),
    countMessage,
    countMessages(messages) {
      let total = counter.promptOverhead;
      for (const message of messages) total += countMessage(message);
      return total;
    },
  };
}

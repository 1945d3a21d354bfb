import type { Message, TokenCounter } from '../contracts/index.js';
import { InvalidArgumentError, InvalidMessageError } from '../errors/index.js';
import { countingWithinOf, worthAFloor } from './build-counter.js';

/** A `TokenCounter` that counts exactly only what may fit a limit; see `boundedCounter`. */
export interface BoundedTokenCounter extends TokenCounter {
  /** Messages and texts up to this many tokens are counted exactly. */
  readonly limitTokens: number;
  /**
   * Whether a count so far was a lower bound: a message or text surely over `limitTokens`,
   * counted by its floor instead of exactly.
   */
  readonly countedByFloor: boolean;
}

/**
 * A view of `counter` that pays for exact counts only where they can matter against a limit
 * (a budget): a message or text of more than 256k characters whose floor — a lower bound computed
 * in one pass over its characters, without BPE — is already over `limitTokens` counts as that
 * floor. A payload far
 * larger than any budget is going to be cut whatever its exact size, so it costs a pass over its
 * characters, not a tokenizer run over millions of tokens. Everything that may fit is counted
 * exactly, with `counter`'s caches.
 *
 * Every count is at most the exact one, and a count over `limitTokens` means the exact count is
 * over it too: "over the limit?" gets the same answer as with exact counts. Totals that hold a
 * floor are lower bounds (`countedByFloor` says so). The counters of `createTokenCounter` (tiktoken
 * encodings, with or without `margin`) have a floor; any other counter is used as it is (exact).
 */
export function boundedCounter(counter: TokenCounter, limitTokens: number): BoundedTokenCounter {
  if (typeof limitTokens !== 'number' || !Number.isInteger(limitTokens) || limitTokens < 0) {
    throw new InvalidArgumentError({
      message: `limitTokens must be a non-negative integer, got ${String(limitTokens)}`,
      argument: 'limitTokens',
    });
  }
  const within = countingWithinOf(counter);
  let countedByFloor = false;
  const countAt = (message: Message, index?: number): number => {
    if (!within) return counter.countMessage(message);
    const counted = within.countMessage(message, limitTokens, index);
    if (!counted.exact) countedByFloor = true;
    return counted.tokens;
  };
  return {
    name: counter.name,
    promptOverhead: counter.promptOverhead,
    limitTokens,
    get countedByFloor() {
      return countedByFloor;
    },
    countText(text: string): number {
      if (within && typeof text === 'string' && worthAFloor(text.length, limitTokens)) {
        const floor = within.floorText(text);
        if (floor > limitTokens) {
          countedByFloor = true;
          return floor;
        }
      }
      return counter.countText(text);
    },
    countMessage: (message) => countAt(message),
    countMessages(messages: readonly Message[]): number {
      if (!within) return counter.countMessages(messages);
      if (!Array.isArray(messages)) {
        throw new InvalidMessageError({ message: 'messages must be an array', path: 'messages' });
      }
      let total = counter.promptOverhead;
      for (let index = 0; index < messages.length; index++)
        total += countAt(messages[index]!, index);
      return total;
    },
  };
}

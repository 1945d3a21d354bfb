import type { Message } from './message.js';

/**
 * Counts tokens. Implementations must be deterministic, and `countMessages` must equal the sum of
 * `countMessage` over the messages plus `promptOverhead`, so that callers can add and subtract
 * per-message counts instead of recounting a whole prompt.
 */
export interface TokenCounter {
  /** A short name for reports, for example `tiktoken:o200k_base` or `estimate`. */
  readonly name: string;
  /** Tokens of a plain string. */
  countText(text: string): number;
  /** Tokens of one message, including its per-message overhead, tool names and arguments, and a fixed cost per image or file. */
  countMessage(message: Message): number;
  /** Tokens of a whole prompt: the sum of `countMessage` plus `promptOverhead`. */
  countMessages(messages: readonly Message[]): number;
  /** Fixed tokens every prompt costs on top of its messages (reply priming). */
  readonly promptOverhead: number;
}

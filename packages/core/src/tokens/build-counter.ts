import { KeyedLru } from '../cache/index.js';
import type { Message, TokenCounter } from '../contracts/index.js';
import { InvalidArgumentError, InvalidMessageError } from '../errors/index.js';
import { type MessageCost, messageCost } from './message-cost.js';

/** Options every ctxmem counter shares: what messages cost beyond their text, and the cache. */
export interface MessageCountOptions {
  /**
   * Tokens per image (an image part, an `image/*` file part or image media in a tool result),
   * whatever its size: base64 data is never counted as text.
   * @default 1000
   */
  imageTokens?: number;
  /**
   * Tokens per non-image file part (PDF, audio…) or non-image media in a tool result.
   * @default 1000
   */
  fileTokens?: number;
  /**
   * Tokens every message costs on top of its role (1 token), its content and its `name` (+1 when
   * set), as in OpenAI's cookbook.
   * @default 3
   */
  messageOverhead?: number;
  /**
   * Tokens every prompt costs on top of its messages (reply priming).
   * @default 3
   */
  promptOverhead?: number;
  /**
   * Message counts kept by content fingerprint, so a history converted into new objects on every
   * call (as adapters do) is not counted again. The least recently used entries are dropped
   * beyond this size; 0 keeps only the per-object cache.
   * @default 10_000
   */
  cacheSize?: number;
}

function checkCount(value: unknown, argument: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new InvalidArgumentError({
      message: `${argument} must be a non-negative integer, got ${String(value)}`,
      argument,
    });
  }
  return value;
}

/**
 * A content fingerprint of a message's cost: two independent 32-bit hashes over every counted
 * text (with its length, so the split between texts matters) plus the fixed tokens. Only what is
 * counted goes in, so image data, ids and ctxmem metadata do not make identical costs look new.
 */
function fingerprint(cost: MessageCost): string {
  let first = 0x811c9dc5;
  let second = 0x9747b28c;
  let length = 0;
  for (const text of cost.texts) {
    first = Math.imul(first ^ text.length, 0x01000193);
    second = Math.imul(second ^ text.length, 0x5bd1e995);
    for (let index = 0; index < text.length; index++) {
      const code = text.charCodeAt(index);
      first = Math.imul(first ^ code, 0x01000193);
      second = Math.imul(second ^ code, 0x5bd1e995);
      second ^= second >>> 15;
    }
    length += text.length;
  }
  return `${cost.fixed}:${cost.texts.length}:${length}:${first >>> 0}:${second >>> 0}`;
}

/**
 * A message's tokens under a limit: exact, or (`exact: false`) a lower bound above the limit
 * when the message is surely over it.
 */
export interface CountWithin {
  tokens: number;
  exact: boolean;
}

/** Counts a message exactly, unless it is surely over `limitTokens` (see `CountWithin`). */
export type MessageCountWithin = (
  message: Message,
  limitTokens: number,
  index?: number,
) => CountWithin;

/**
 * A message's text is checked against the limit with the floor (one cheap pass) only when it has
 * more than this many characters per token of the limit: below it the floor rarely passes the
 * limit (it gives a token per 2–6 characters of ordinary text), and the exact count follows anyway.
 */
const FLOOR_CHARACTERS_PER_TOKEN = 2;

/**
 * Messages and texts up to this many characters are always counted exactly: BPE over them costs
 * milliseconds, and reports keep exact figures for ordinary prompts. The floor is for payloads
 * whose exact count would cost more than everything else the call does.
 */
const FLOOR_MIN_CHARACTERS = 256 * 1024;

/** Whether a text of `characters` is worth checking against `limitTokens` with the floor first. */
export function worthAFloor(characters: number, limitTokens: number): boolean {
  return characters > Math.max(FLOOR_MIN_CHARACTERS, limitTokens * FLOOR_CHARACTERS_PER_TOKEN);
}

/** What a counter built with a floor offers `boundedCounter`. */
export interface CountingWithin {
  countMessage: MessageCountWithin;
  /** A lower bound of the counter's `countText`. */
  floorText: (text: string) => number;
}

const countersWithin = new WeakMap<TokenCounter, CountingWithin>();

/** `counter`'s bounded counting, when `buildCounter` made it with a floor. */
export function countingWithinOf(counter: TokenCounter): CountingWithin | undefined {
  return countersWithin.get(counter);
}

/**
 * A `TokenCounter` from a text counter: message accounting (see `messageCost`) plus two caches —
 * a `WeakMap` by message object, then an LRU by content fingerprint. With `floorText` (a lower
 * bound of `countText` that costs no more than a pass over the text), the counter also counts
 * within a limit (`countWithinOf`): a message surely over the limit costs its floor, not its BPE.
 */
export function buildCounter(
  name: string,
  countText: (text: string) => number,
  {
    imageTokens = 1000,
    fileTokens = 1000,
    messageOverhead = 3,
    promptOverhead = 3,
    cacheSize = 10_000,
  }: MessageCountOptions,
  floorText?: (text: string) => number,
): TokenCounter {
  const settings = {
    imageTokens: checkCount(imageTokens, 'imageTokens'),
    fileTokens: checkCount(fileTokens, 'fileTokens'),
    messageOverhead: checkCount(messageOverhead, 'messageOverhead'),
  };
  checkCount(promptOverhead, 'promptOverhead');
  const byObject = new WeakMap<object, number>();
  const byContent =
    checkCount(cacheSize, 'cacheSize') > 0 ? new KeyedLru<number>(cacheSize) : undefined;

  function countCost(cost: MessageCost): number {
    let total = cost.fixed;
    for (const text of cost.texts) total += countText(text);
    return total;
  }

  const pathOf = (index: number | undefined) =>
    index === undefined ? 'message' : `messages[${index}]`;

  /** `index` is the message's position in a `countMessages` call, for error paths. */
  function countAt(message: Message, index?: number, knownCost?: MessageCost): number {
    if (typeof message === 'object' && message !== null) {
      const cached = byObject.get(message);
      if (cached !== undefined) return cached;
    }
    const cost = knownCost ?? messageCost(message, pathOf(index), settings);
    let count: number | undefined;
    if (byContent === undefined) {
      count = countCost(cost);
    } else {
      const key = fingerprint(cost);
      count = byContent.get(key);
      if (count === undefined) {
        count = countCost(cost);
        byContent.set(key, count);
      }
    }
    byObject.set(message, count);
    return count;
  }

  // Floors of messages found surely over a limit: kept with the message, so a later call with a
  // limit the floor is still over costs nothing, and one with a higher limit counts exactly.
  const floorByObject = new WeakMap<object, number>();

  const countWithin: MessageCountWithin = (message, limitTokens, index) => {
    if (typeof message === 'object' && message !== null) {
      const exact = byObject.get(message);
      if (exact !== undefined) return { tokens: exact, exact: true };
      const floor = floorByObject.get(message);
      if (floor !== undefined) {
        return floor > limitTokens
          ? { tokens: floor, exact: false }
          : { tokens: countAt(message, index), exact: true };
      }
    }
    const cost = messageCost(message, pathOf(index), settings);
    let characters = 0;
    for (const text of cost.texts) characters += text.length;
    if (floorText && worthAFloor(characters, limitTokens)) {
      let floor = cost.fixed;
      for (const text of cost.texts) floor += floorText(text);
      floorByObject.set(message, floor);
      if (floor > limitTokens) return { tokens: floor, exact: false };
    }
    return { tokens: countAt(message, index, cost), exact: true };
  };

  // The previous `countMessages` input and its running totals: a history that grew keeps its
  // earlier message objects, and comparing references is cheaper than even a WeakMap lookup.
  // Both arrays are private (the caller's array is never kept, so changing it cannot make a stale
  // prefix look current) and edited in place: a call that appends allocates nothing.
  const previousMessages: Message[] = [];
  const previousTotals: number[] = [0];

  const counter: TokenCounter = {
    name,
    promptOverhead,
    countText(text: string): number {
      if (typeof text !== 'string') {
        throw new InvalidArgumentError({
          message: `countText expects a string, got ${typeof text}`,
          argument: 'text',
        });
      }
      return countText(text);
    },
    countMessage(message: Message): number {
      return countAt(message);
    },
    countMessages(messages: readonly Message[]): number {
      if (!Array.isArray(messages)) {
        throw new InvalidMessageError({ message: 'messages must be an array', path: 'messages' });
      }
      const length = messages.length;
      const shared = Math.min(length, previousMessages.length);
      let matched = 0;
      while (matched < shared && messages[matched] === previousMessages[matched]) matched++;
      previousMessages.length = matched;
      previousTotals.length = matched + 1;
      let total = previousTotals[matched]!;
      for (let index = matched; index < length; index++) {
        const message = messages[index]!;
        total += countAt(message, index);
        previousMessages.push(message);
        previousTotals.push(total);
      }
      return total + promptOverhead;
    },
  };
  if (floorText) countersWithin.set(counter, { countMessage: countWithin, floorText });
  return counter;
}

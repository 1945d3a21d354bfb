import type { Message } from '@ctxmem/core';
import { fromPromptMessage } from '../convert/from-prompt.js';
import type { PromptVersion } from '../convert/prompt-types.js';
import { toPromptMessage } from '../convert/to-prompt.js';

/** Deeper values are compared as different (and converted again), never recursed into. */
const MAX_COMPARE_DEPTH = 64;

function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * Deep equality of prompt JSON, where an `undefined` property equals a missing one (the AI SDK
 * writes `providerOptions: undefined`). Cheap when both sides share their strings, as the AI SDK's
 * prompts of one conversation do: string comparison then stops at the pointer.
 */
export function samePromptValue(left: unknown, right: unknown, depth = 0): boolean {
  if (left === right) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) {
    return false;
  }
  if (depth > MAX_COMPARE_DEPTH) return false;
  if (Array.isArray(left)) {
    if (!Array.isArray(right) || left.length !== right.length) return false;
    for (let index = 0; index < left.length; index++) {
      if (!samePromptValue(left[index], right[index], depth + 1)) return false;
    }
    return true;
  }
  if (left instanceof Uint8Array) {
    if (!(right instanceof Uint8Array) || left.byteLength !== right.byteLength) return false;
    for (let index = 0; index < left.byteLength; index++) {
      if (left[index] !== right[index]) return false;
    }
    return true;
  }
  if (left instanceof URL) return right instanceof URL && left.href === right.href;
  if (!isPlainObject(left) || !isPlainObject(right)) return false;
  const leftRecord = left as Record<string, unknown>;
  const rightRecord = right as Record<string, unknown>;
  let leftKeys = 0;
  for (const key in leftRecord) {
    const value = leftRecord[key];
    if (value === undefined) continue;
    leftKeys++;
    if (!samePromptValue(value, rightRecord[key], depth + 1)) return false;
  }
  let rightKeys = 0;
  for (const key in rightRecord) if (rightRecord[key] !== undefined) rightKeys++;
  return leftKeys === rightKeys;
}

interface CachedPrompt {
  prompt: readonly unknown[];
  messages: Message[];
  version: PromptVersion;
}

export interface ConvertedPrompt {
  messages: Message[];
  /** The prompt message each core message was read from. */
  sources: Map<Message, unknown>;
}

/**
 * Converts prompts to core messages and back, reusing the core message objects of the previous
 * prompt of the same session where the message is unchanged. The AI SDK builds every prompt from
 * new objects; handing core the same message objects as last time lets its per-object caches
 * (fingerprints, token counts) answer, so a call costs O(new messages), not O(history).
 */
export class PromptConversionCache {
  readonly #entries = new Map<string, CachedPrompt>();
  readonly #limit: number;
  /** Prompt forms of the messages ctxmem created (summaries, records), reused across calls. */
  readonly #created = { v3: new WeakMap<Message, unknown>(), v4: new WeakMap<Message, unknown>() };

  constructor(limit: number) {
    this.#limit = Math.max(1, limit);
  }

  fromPrompt(key: string, prompt: readonly unknown[], version: PromptVersion): ConvertedPrompt {
    const previous = this.#entries.get(key);
    const reusable = previous?.version === version ? previous : undefined;
    const messages: Message[] = new Array(prompt.length);
    const sources = new Map<Message, unknown>();
    for (let index = 0; index < prompt.length; index++) {
      const source = prompt[index];
      let message: Message | undefined;
      if (reusable && index < reusable.prompt.length) {
        if (samePromptValue(reusable.prompt[index], source)) message = reusable.messages[index];
      }
      message ??= fromPromptMessage(source, index, version);
      messages[index] = message;
      sources.set(message, source);
    }
    this.#entries.delete(key);
    this.#entries.set(key, { prompt, messages, version });
    if (this.#entries.size > this.#limit) {
      this.#entries.delete(this.#entries.keys().next().value as string);
    }
    return { messages, sources };
  }

  /**
   * The prompt for `messages`: the caller's own prompt messages where core kept them, cached
   * conversions for the messages ctxmem created. Returns `original` itself when nothing changed.
   */
  toPrompt(
    messages: readonly Message[],
    converted: ConvertedPrompt,
    original: readonly unknown[],
    version: PromptVersion,
  ): unknown[] {
    const prompt: unknown[] = new Array(messages.length);
    let unchanged = messages.length === original.length;
    for (let index = 0; index < messages.length; index++) {
      const message = messages[index]!;
      let source = converted.sources.get(message);
      if (source === undefined) {
        const created = this.#created[version];
        source = created.get(message);
        if (source === undefined) {
          source = toPromptMessage(message, version);
          created.set(message, source);
        }
      }
      if (source !== original[index]) unchanged = false;
      prompt[index] = source;
    }
    return unchanged ? (original as unknown[]) : prompt;
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }
}

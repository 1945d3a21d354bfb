import type { Message } from '@ctxmem/core';
import { sameValue } from '@ctxmem/core/adapter-kit';
import { fromPromptMessage, requirePromptEntry } from '../convert/from-prompt.js';
import type { PromptVersion } from '../convert/prompt-types.js';
import { toPromptMessage } from '../convert/to-prompt.js';

interface CachedPrompt {
  /**
   * For each position, the prompt message its core message was first read from. Comparing with
   * these long-lived objects, not with the previous call's, lets each call's prompt objects die
   * young (cheap for the garbage collector).
   */
  sources: unknown[];
  messages: Message[];
  version: PromptVersion;
}

export interface ConvertedPrompt {
  /** The core message of each prompt message, by position. */
  messages: Message[];
  /** The prompt the messages were read from. */
  prompt: readonly unknown[];
}

/**
 * `sameValue`, false when reading either side throws: the previous prompt may have been rejected
 * for a getter that throws, and the new one is then converted and checked again.
 */
function sameSource(previous: unknown, source: unknown): boolean {
  try {
    return sameValue(previous, source);
  } catch {
    return false;
  }
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
    const sources: unknown[] = new Array(prompt.length);
    for (let index = 0; index < prompt.length; index++) {
      requirePromptEntry(prompt, index);
      const source = prompt[index];
      if (
        reusable &&
        index < reusable.sources.length &&
        sameSource(reusable.sources[index], source)
      ) {
        messages[index] = reusable.messages[index]!;
        sources[index] = reusable.sources[index];
      } else {
        messages[index] = fromPromptMessage(source, index, version);
        sources[index] = source;
      }
    }
    this.#entries.delete(key);
    this.#entries.set(key, { sources, messages, version });
    if (this.#entries.size > this.#limit) {
      this.#entries.delete(this.#entries.keys().next().value as string);
    }
    return { messages, prompt };
  }

  /**
   * The prompt for `messages`: the caller's own prompt messages where core kept them, cached
   * conversions for the messages ctxmem created. Returns the converted prompt itself when
   * nothing changed.
   */
  toPrompt(
    messages: readonly Message[],
    converted: ConvertedPrompt,
    version: PromptVersion,
  ): readonly unknown[] {
    const { messages: inputs, prompt: original } = converted;
    const prompt: unknown[] = new Array(messages.length);
    let unchanged = messages.length === original.length;
    // Core keeps the messages it does not replace in their order, so a cursor finds them; the
    // position map is only built when something was replaced or inserted.
    let cursor = 0;
    let positions: Map<Message, number> | undefined;
    for (let index = 0; index < messages.length; index++) {
      const message = messages[index]!;
      let source: unknown;
      if (cursor < inputs.length && inputs[cursor] === message) {
        source = original[cursor++];
      } else {
        positions ??= new Map(inputs.map((input, position) => [input, position]));
        const position = positions.get(message);
        if (position !== undefined) {
          source = original[position];
          cursor = position + 1;
        } else {
          const created = this.#created[version];
          source = created.get(message);
          if (source === undefined) {
            source = toPromptMessage(message, version);
            created.set(message, source);
          }
        }
      }
      if (source !== original[index]) unchanged = false;
      prompt[index] = source;
    }
    return unchanged ? original : prompt;
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }
}

import {
  CtxmemError,
  createMemoryToolBackend,
  type MemoryToolBackendOptions,
  type MemoryToolCommand,
  type Scope,
} from '@ctxmem/core';
import { requireOptions, scopeResolver } from '@ctxmem/core/adapter-kit';
import type { MemoryToolCall } from './memory-tools.js';

export interface MemoryToolBackendScopeOptions {
  /**
   * Whose memory files the tool reads and writes: a fixed scope, or one resolved from the tool
   * call (its context, for example). A scope never sees another scope's files.
   * @default {}
   */
  scope?: Scope | ((call: MemoryToolCall) => Scope);
}

/** What `memoryToolBackend` returns: the options of `anthropic.tools.memory_20250818(…)`. */
export interface MemoryToolBackendExecute {
  /**
   * Runs one command of the memory tool and resolves to the result text Anthropic documents;
   * throws a typed ctxmem error whose message is the error text, which the AI SDK sends back as
   * the tool's error result (`is_error: true`).
   */
  execute: (input: MemoryToolCommand, call: MemoryToolCall) => Promise<string>;
}

/**
 * The storage of Anthropic's memory tool (`memory_20250818`) on a ctxmem memory store, for
 * `anthropic.tools.memory_20250818` of `@ai-sdk/anthropic`: pass what this returns to it. Files
 * are memory cards of the scope (found by memory search), writes of a scope go one at a time, and
 * paths outside `/memories` are refused. It returns the tool's options rather than the tool, so
 * that this package needs no `@ai-sdk/anthropic` at run time and works with the provider version
 * the app has.
 *
 * @example
 * import { anthropic } from '@ai-sdk/anthropic';
 * const memory = anthropic.tools.memory_20250818(memoryToolBackend({ store, scope: { userId } }));
 * await generateText({ model: anthropic('claude-sonnet-4-5'), tools: { memory }, prompt });
 */
export function memoryToolBackend(
  given: MemoryToolBackendOptions & MemoryToolBackendScopeOptions,
): MemoryToolBackendExecute {
  const { scope = {}, ...options } = requireOptions(given, 'memoryToolBackend');
  const backend = createMemoryToolBackend(options);
  const resolveScope = scopeResolver(scope);
  return {
    async execute(input, call) {
      try {
        return await backend.execute(backend.parseInput(input), { scope: resolveScope(call) });
      } catch (error) {
        // AI SDK 7 sends the model `String(error)` ("CtxmemNotFoundError: …"), AI SDK 6 the
        // message: either way the model is to read the documented text alone. The error stays
        // the typed one, for the app's `tool-error` part.
        if (CtxmemError.isInstance(error)) {
          Object.defineProperty(error, 'toString', {
            value: () => error.message,
            configurable: true,
          });
        }
        throw error;
      }
    },
  };
}

import {
  CtxmemError,
  createMemoryToolBackend,
  type MemoryToolBackendOptions,
  type Scope,
} from '@ctxmem/core';
import { requireOptions, scopeResolver } from '@ctxmem/core/adapter-kit';
import { ToolMessage } from '@langchain/core/messages';
import { type DynamicStructuredTool, tool } from '@langchain/core/tools';
import type { MemoryToolRuntime } from './memory-tools.js';

export interface AnthropicMemoryToolOptions extends MemoryToolBackendOptions {
  /**
   * Whose memory files the tool reads and writes: a fixed scope, or one resolved from the tool's
   * runtime (the run's context or `thread_id`). A scope never sees another scope's files.
   * @default {}
   */
  scope?: Scope | ((runtime: MemoryToolRuntime) => Scope);
}

/** What LangChain gives a tool besides its input, as far as this tool reads it. */
interface MemoryToolConfig extends MemoryToolRuntime {
  /** Present when the tool runs for a model's tool call (an agent's tool node). */
  toolCall?: { id?: string };
}

/**
 * Anthropic's memory tool (`memory_20250818`) as a LangChain tool, with its storage on a ctxmem
 * memory store: files are memory cards of the scope (found by memory search), writes of a scope
 * go one at a time, and paths outside `/memories` are refused. Bound to `ChatAnthropic` it is
 * the native memory tool, as `memory_20250818()` of `@langchain/anthropic` makes it (the same name,
 * `memory`, and provider definition); bound to another chat model it is a function tool with the
 * same commands. Results are the texts Anthropic documents; a command that fails returns its
 * error text in a `ToolMessage` with status `error` for the model to correct (called without a
 * tool call, the typed error is thrown).
 *
 * @example
 * const memory = anthropicMemoryTool({ store, leases, scope: { userId } });
 * const agent = createAgent({ model: new ChatAnthropic({ model: 'claude-sonnet-4-5' }), tools: [memory] });
 */
export function anthropicMemoryTool(given: AnthropicMemoryToolOptions): DynamicStructuredTool {
  const { scope = {}, ...options } = requireOptions(given, 'anthropicMemoryTool');
  const backend = createMemoryToolBackend(options);
  const resolveScope = scopeResolver(scope);
  const memoryTool = tool(
    async (input: unknown, config: MemoryToolConfig = {}) => {
      try {
        return await backend.execute(backend.parseInput(input), { scope: resolveScope(config) });
      } catch (error) {
        const id = config.toolCall?.id;
        if (!CtxmemError.isInstance(error) || id === undefined) throw error;
        return new ToolMessage({
          content: error.message,
          tool_call_id: id,
          name: backend.name,
          status: 'error',
        });
      }
    },
    { name: backend.name, description: backend.description, schema: backend.inputSchema },
  ) as unknown as DynamicStructuredTool;
  memoryTool.extras = {
    ...memoryTool.extras,
    providerToolDefinition: { type: 'memory_20250818', name: backend.name },
  };
  return memoryTool;
}

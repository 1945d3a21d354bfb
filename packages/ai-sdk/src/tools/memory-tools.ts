import {
  createMemoryTools,
  type MemoryToolName,
  type MemoryToolsOptions,
  type Scope,
  type ToolDefinition,
} from '@ctxmem/core';
import { requireOptions } from '@ctxmem/core/adapter-kit';
import { jsonSchema, type Tool, tool } from 'ai';
import type { ContextMemoryControls } from '../middleware/context-memory-middleware.js';

export type { MemoryToolName } from '@ctxmem/core';

/** What the AI SDK passes to a tool's `execute`, as far as the scope resolver may need it. */
export interface MemoryToolCall {
  toolCallId: string;
  abortSignal?: AbortSignal;
  /** The tool context (AI SDK 7). */
  context?: unknown;
  /** The tool context (AI SDK 6). */
  experimental_context?: unknown;
}

export interface MemoryToolsScopeOptions {
  /**
   * Whose memories, history and offloads the tools read: a fixed scope, or one resolved from the
   * tool call (its context, for example). Use the same scope as the conversation's.
   * @default {}
   */
  scope?: Scope | ((call: MemoryToolCall) => Scope);
}

function asAiSdkTool(
  definition: ToolDefinition<never, unknown>,
  resolveScope: (call: MemoryToolCall) => Scope,
): Tool {
  return tool({
    description: definition.description,
    inputSchema: jsonSchema(definition.inputSchema, {
      // The SDK validates before `execute`, so the model gets a tool error it can correct.
      validate: (value) => {
        try {
          return { success: true, value: definition.parseInput(value) };
        } catch (error) {
          return {
            success: false,
            error: error instanceof Error ? error : new Error(String(error)),
          };
        }
      },
    }),
    execute: async (input: never, call: MemoryToolCall) =>
      definition.execute(input, {
        scope: resolveScope(call),
        ...(call.abortSignal ? { abortSignal: call.abortSignal } : {}),
      }),
  }) as Tool;
}

/**
 * The memory tools as AI SDK tools: `search_memory` (long-term memories), `recall_conversation`
 * (exact earlier turns from the history store) and `reload_context` (a payload that was offloaded
 * out of the prompt), for whichever stores are available. Pass the middleware to use its stores,
 * or the stores themselves.
 *
 * @example
 * const memory = contextMemoryMiddleware({ memory: { store }, historyStore });
 * await generateText({ model, messages, tools: { ...tools, ...memoryTools(memory, { scope }) } });
 */
export function memoryTools(
  source: MemoryToolsOptions | Pick<ContextMemoryControls, 'stores'>,
  { scope = {} }: MemoryToolsScopeOptions = {},
): Partial<Record<MemoryToolName, Tool>> {
  requireOptions(source, 'memoryTools');
  const stores = 'stores' in source ? source.stores : source;
  const resolveScope = typeof scope === 'function' ? scope : () => scope;
  const definitions = createMemoryTools(stores);
  const tools: Partial<Record<MemoryToolName, Tool>> = {};
  for (const [name, definition] of Object.entries(definitions)) {
    tools[name as MemoryToolName] = asAiSdkTool(definition, resolveScope);
  }
  return tools;
}

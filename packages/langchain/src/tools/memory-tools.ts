import {
  createMemoryTools,
  type MemoryToolsOptions,
  type Scope,
  type ToolDefinition,
} from '@ctxmem/core';
import { requireOptions } from '@ctxmem/core/adapter-kit';
import { type DynamicStructuredTool, tool } from '@langchain/core/tools';
import type { MiddlewareRuntime } from '../agent/context-memory-middleware.js';

export type { MemoryToolName } from '@ctxmem/core';

/** What a LangChain tool is given besides its input, as far as the scope resolver needs it. */
export interface MemoryToolRuntime {
  /** The run's context (`createAgent({ contextSchema })`). */
  context?: unknown;
  /** The run's configurable values, `thread_id` among them. */
  configurable?: Record<string, unknown>;
  signal?: AbortSignal;
}

export interface MemoryToolsScopeOptions {
  /**
   * Whose memories, history and offloads the tools read: a fixed scope, or one resolved from the
   * tool's runtime. Use the conversation's scope.
   * @default the source's: the middleware's `scope` option (the LangGraph thread by default), or the
   * memory's `scope`; `{}` for plain stores
   */
  scope?: Scope | ((runtime: MemoryToolRuntime) => Scope);
}

/** A source of memory tools: the agent middleware, a `ContextChatMemory`, or the stores themselves. */
export type MemoryToolsSource =
  | MemoryToolsOptions
  | {
      readonly stores: MemoryToolsOptions;
      scopeOf?(runtime: MiddlewareRuntime): Scope;
      readonly scope?: Scope;
    };

function defaultScope(source: MemoryToolsSource): (runtime: MemoryToolRuntime) => Scope {
  if ('stores' in source) {
    const { scopeOf, scope } = source;
    if (typeof scopeOf === 'function') {
      return (runtime) =>
        scopeOf({
          context: runtime.context,
          configurable: runtime.configurable as MiddlewareRuntime['configurable'],
        });
    }
    if (scope) return () => scope;
  }
  return () => ({});
}

/**
 * The tool's JSON schema with fields that have a default made optional: the schema describes the
 * output of parsing, where they are always present, but the model may leave them out.
 */
function inputSchemaOf(definition: ToolDefinition<never, unknown>): Record<string, unknown> {
  const schema = definition.inputSchema;
  const properties = schema.properties as Record<string, { default?: unknown }> | undefined;
  if (!Array.isArray(schema.required) || !properties) return schema;
  const required = (schema.required as string[]).filter(
    (key) => properties[key]?.default === undefined,
  );
  return { ...schema, required };
}

function asLangChainTool(
  definition: ToolDefinition<never, unknown>,
  resolveScope: (runtime: MemoryToolRuntime) => Scope,
): DynamicStructuredTool {
  return tool(
    async (input: unknown, runtime: MemoryToolRuntime = {}) => {
      // Validated again here: the JSON schema check of LangChain is not the tool's full contract.
      const parsed = definition.parseInput(input);
      const result = await definition.execute(parsed, {
        scope: resolveScope(runtime),
        ...(runtime.signal ? { abortSignal: runtime.signal } : {}),
      });
      return JSON.stringify(result);
    },
    {
      name: definition.name,
      description: definition.description,
      schema: inputSchemaOf(definition),
    },
  ) as unknown as DynamicStructuredTool;
}

/**
 * The memory tools as LangChain tools: `search_memory` (long-term memories), `recall_conversation`
 * (exact earlier turns from the history store) and `reload_context` (a payload that was offloaded
 * out of the prompt), for whichever stores the source has. Results are JSON text; bad input
 * throws `InvalidArgumentError`, which the agent's tool node turns into an error message the model
 * can correct.
 *
 * @example
 * const memory = contextMemoryMiddleware({ model, memory: { store }, historyStore });
 * const agent = createAgent({ model, tools: [...tools, ...memoryTools(memory)], middleware: [memory] });
 */
export function memoryTools(
  source: MemoryToolsSource,
  options: MemoryToolsScopeOptions = {},
): DynamicStructuredTool[] {
  const { scope } = requireOptions(options, 'memoryTools');
  const stores = 'stores' in source ? source.stores : source;
  const resolveScope =
    scope === undefined ? defaultScope(source) : typeof scope === 'function' ? scope : () => scope;
  return Object.values(createMemoryTools(stores)).map((definition) =>
    asLangChainTool(definition as ToolDefinition<never, unknown>, resolveScope),
  );
}

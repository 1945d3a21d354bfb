import {
  type ContextManager,
  type MemoryToolsOptions,
  type Message,
  type Scope,
  scopeKey,
} from '@ctxmem/core';
import { checkScope, KeyedLru, leadingSystemCount, requireOptions } from '@ctxmem/core/adapter-kit';
import { type BaseMessage, SystemMessage } from '@langchain/core/messages';
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';
import { createMiddleware } from 'langchain';
import { MessageConverter } from '../convert/index.js';
import { chatModelMaxOutputTokens } from '../model/chat-model-settings.js';
import { providerUsageOfMessage } from '../model/chat-model-usage.js';
import { type ContextOptions, createContext } from '../model/create-context.js';

/** What the scope resolver is given: the run's `context` and `configurable` (with `thread_id`). */
export interface MiddlewareRuntime {
  context?: unknown;
  configurable?: { thread_id?: string; [key: string]: unknown };
}

export type ScopeResolver = (runtime: MiddlewareRuntime) => Scope;

export interface ContextMemoryMiddlewareOptions extends ContextOptions {
  /**
   * Whose conversation a run is: a fixed scope, or a function of the run's `context` and
   * `configurable`.
   * @default the LangGraph thread: `{ sessionId: configurable.thread_id }` (`{}` without one)
   */
  scope?: Scope | ScopeResolver;
  /**
   * Inject the memories relevant to the newest user message right before it, in each model call
   * (not in the agent state). Needs `memory`.
   * @default true
   */
  injectMemories?: boolean;
  /** The middleware's name in the agent graph. @default 'ContextMemoryMiddleware' */
  name?: string;
}

/** What the middleware exposes besides the LangChain middleware fields. */
export interface ContextMemoryControls {
  /** The stores the middleware reads and writes, for `memoryTools`. */
  readonly stores: MemoryToolsOptions;
  /** The context manager (budget, counter, compaction caches). */
  readonly manager: ContextManager;
  /** The scope of a run, as the `scope` option resolves it. */
  scopeOf(runtime: MiddlewareRuntime): Scope;
  /** Resolves when background compactions and memory flushes have settled. */
  idle(): Promise<void>;
  /** Forgets a conversation's compaction state (its stored history too, when there is a store). */
  clear(scope?: Scope): Promise<void>;
}

/** The default scope: the LangGraph thread is the conversation. */
export function threadScope(runtime: MiddlewareRuntime): Scope {
  const thread = runtime.configurable?.thread_id;
  return typeof thread === 'string' && thread.length > 0 ? { sessionId: thread } : {};
}

/**
 * The tools bound to a model call as the provider receives them (OpenAI function JSON), for
 * counting. A provider-side tool that has no function form is counted as it is given.
 */
function toolDefinitions(tools: readonly unknown[]): unknown[] {
  return tools.map((tool) => {
    try {
      return convertToOpenAITool(tool as Parameters<typeof convertToOpenAITool>[0]);
    } catch {
      return tool;
    }
  });
}

/** The system message of a model call with ctxmem's leading system block folded into it. */
function mergedSystemMessage(
  original: SystemMessage | undefined,
  additions: readonly BaseMessage[],
): SystemMessage {
  const texts = additions.map((message) =>
    typeof message.content === 'string' ? message.content : message.text,
  );
  const text = texts.join('\n\n');
  if (!original || original.text === '') return new SystemMessage(text);
  const content =
    typeof original.content === 'string'
      ? `${original.content}\n\n${text}`
      : [...original.content, { type: 'text' as const, text: `\n\n${text}` }];
  return new SystemMessage({ ...original, content } as ConstructorParameters<
    typeof SystemMessage
  >[0]);
}

/**
 * A `createAgent` middleware that keeps every model call of the agent inside the model's budget.
 *
 * - `wrapModelCall`: compacts what the model receives when the conversation crosses the threshold
 *   (old tool runs become records, large payloads are offloaded, old rounds fold into one rolling
 *   summary), counting the system prompt, the tools bound to the model and the output it asks for
 *   (`maxTokens`, a bound `max_tokens`, or one in the call's `modelSettings`: see
 *   `chatModelMaxOutputTokens`); injects the memories relevant to the newest user message; and
 *   folds the summary into the one system message (providers such as Anthropic accept one
 *   only). The provider has the last word: each answer's `usage_metadata.input_tokens` teaches
 *   the manager how far its count is from the provider's, and a call the provider rejects as
 *   too long (LangChain's `ContextOverflowError`, `lc_error_code` `CONTEXT_OVERFLOW`, or the
 *   provider SDK's own error) is prepared again, smaller, and sent once more; a second
 *   rejection throws ctxmem's `ContextOverflowError` (see `ContextManager.callModel`). The
 *   agent state keeps the conversation as it happened: nothing of ctxmem's shows in
 *   the stream, and the context manager reuses its compaction of the prefix on every later step
 *   (no summarizer call until the next threshold crossing). Every tool call keeps its result and
 *   the newest user message stays verbatim.
 * - `beforeModel` / `afterAgent`: with `historyStore`, record the original messages for
 *   `recall_conversation`.
 *
 * Fails closed: when the summarizer model fails, the extractive summarizer writes the summary; an
 * error text never becomes the summary. With `historyStore`, the original messages are recorded
 * before they are compacted (and the final answer when the run ends), for `recall_conversation`.
 *
 * @example
 * const memory = contextMemoryMiddleware({ model: chatModel, memory: { store } });
 * const agent = createAgent({ model: chatModel, tools: [...tools, ...memoryTools(memory)], middleware: [memory] });
 */
export function contextMemoryMiddleware(options: ContextMemoryMiddlewareOptions = {}) {
  requireOptions(options, 'contextMemoryMiddleware');
  const {
    scope: scopeOption,
    injectMemories = true,
    name = 'ContextMemoryMiddleware',
    ...contextOptions
  } = options;
  if (scopeOption !== undefined && typeof scopeOption !== 'function') checkScope(scopeOption);
  const context = createContext(contextOptions, { recordHistory: false, injectMemories });
  const { manager } = context;
  const historyStore = contextOptions.historyStore;
  const converter = new MessageConverter();
  const cacheSize = contextOptions.cacheSize ?? 1_000;
  /** The agent's system prompt per conversation, learned from its model calls. */
  const systemPrompts = new KeyedLru<Message>(cacheSize);
  /** Ids of the messages recorded in the history store, per conversation. */
  const recordedIds = new KeyedLru<Set<string>>(cacheSize);

  function scopeOf(runtime: MiddlewareRuntime): Scope {
    if (scopeOption === undefined) return threadScope(runtime);
    if (typeof scopeOption !== 'function') return scopeOption;
    return checkScope(scopeOption(runtime));
  }

  async function record(scope: Scope, key: string, messages: readonly Message[]): Promise<void> {
    if (!historyStore) return;
    let ids = recordedIds.get(key);
    if (!ids) {
      const stored = await historyStore.read(scope);
      ids = new Set(stored.flatMap(({ message }) => (message.id ? [message.id] : [])));
      recordedIds.set(key, ids);
    }
    const known = ids;
    // The agent state gives every message an id; ctxmem's own messages stand for recorded ones.
    const fresh = messages.filter(
      (message) =>
        message.ctxmem === undefined && message.id !== undefined && !known.has(message.id),
    );
    if (fresh.length === 0) return;
    await historyStore.append(scope, fresh);
    for (const message of fresh) known.add(message.id!);
  }

  const middleware = createMiddleware({
    name,
    beforeModel: async (state, runtime) => {
      if (!historyStore) return undefined;
      const scope = scopeOf(runtime);
      await record(scope, scopeKey(scope), converter.fromLangChain(state.messages));
      return undefined;
    },
    afterAgent: async (state, runtime) => {
      // The final answer is not followed by another model call: record it here.
      if (!historyStore) return undefined;
      const scope = scopeOf(runtime);
      await record(scope, scopeKey(scope), converter.fromLangChain(state.messages));
      return undefined;
    },
    wrapModelCall: async (request, handler) => {
      const scope = scopeOf(request.runtime);
      const key = scopeKey(scope);
      const systemMessage = request.systemMessage;
      let system: Message | undefined;
      if (systemMessage && systemMessage.text !== '') {
        const known = systemPrompts.get(key);
        const [converted] = converter.fromLangChain([systemMessage]);
        // Keep the known object while the prompt is the same, so cached conversions still match.
        system = known && known.content === converted!.content ? known : converted;
        systemPrompts.set(key, system!);
      }
      const messages = converter.fromLangChain(request.messages);
      const input = system ? [system, ...messages] : messages;
      const signal = request.runtime.signal;
      // The model's own limit, or one the agent binds with this call's `modelSettings`.
      const maxOutputTokens = chatModelMaxOutputTokens(request.model, request.modelSettings);
      // Sent through the manager: a "too long" rejection is prepared again and sent once more,
      // and the answer's usage teaches the manager the provider's count.
      return manager.callModel({
        messages: input,
        options: {
          scope,
          ...(signal ? { abortSignal: signal } : {}),
          ...(request.tools.length > 0 ? { tools: toolDefinitions(request.tools) } : {}),
          ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
        },
        send: async (prepared) => {
          const prompt = prepared.messages;
          // The leading system block (system prompt, the agent state's own leading system
          // messages, the summary) becomes the call's one system message.
          const lead = leadingSystemCount(prompt);
          const additions = prompt.slice(0, lead).filter((message) => message !== system);
          const rest = converter.toLangChain(prompt.slice(lead));
          if (additions.length === 0) return handler({ ...request, messages: rest });
          return handler({
            ...request,
            messages: rest,
            systemMessage: mergedSystemMessage(systemMessage, converter.toLangChain(additions)),
          });
        },
        usage: providerUsageOfMessage,
      });
    },
  });

  const controls: ContextMemoryControls = {
    stores: context.stores,
    manager,
    scopeOf,
    idle: () => manager.idle(),
    async clear(scope = {}) {
      const key = scopeKey(scope);
      systemPrompts.delete(key);
      recordedIds.delete(key);
      await manager.clear(scope);
      await historyStore?.clear(scope);
    },
  };
  return Object.assign(middleware, controls);
}

/** The middleware `contextMemoryMiddleware` returns. */
export type ContextMemoryMiddleware = ReturnType<typeof contextMemoryMiddleware>;

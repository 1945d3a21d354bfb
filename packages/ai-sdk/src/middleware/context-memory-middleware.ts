import {
  type ContextManager,
  type ContextManagerOptions,
  createContextManager,
  createInMemoryOffloadStore,
  createMemorySearch,
  createTokenCounter,
  defaultMemoryScope,
  type FlushOptions,
  InvalidArgumentError,
  type MemoryToolsOptions,
  type Message,
  type PrepareOptions,
  type PrepareResult,
  resolveContextWindow,
  type Scope,
  type Summarizer,
  scopeKey,
} from '@ctxmem/core';
import { checkScope, requireOptions, scopedMemory } from '@ctxmem/core/adapter-kit';
import type { PromptVersion } from '../convert/prompt-types.js';
import { type ContextEventSource, createScopedEvents } from '../status/scoped-events.js';
import { mergeScope, splitProviderOptions } from './call-scope.js';
import {
  isLanguageModel,
  type LanguageModelLike,
  languageModelComplete,
} from './language-model-complete.js';
import { type ConvertedPrompt, PromptConversionCache } from './prompt-cache.js';
import { acceptedStream, providerUsageOf, type StreamPartLike } from './provider-response.js';

/** The call options both AI SDK versions hand to a middleware, as far as ctxmem reads them. */
export interface MiddlewareCallOptions {
  prompt: ReadonlyArray<object>;
  /** The tool definitions sent with the prompt: counted against the window. */
  tools?: ReadonlyArray<object>;
  /** The requested output: reserved against the window. */
  maxOutputTokens?: number;
  providerOptions?: Record<string, unknown>;
  headers?: Record<string, string | undefined>;
  abortSignal?: AbortSignal;
}

/** Resolves whose conversation a call belongs to, from the call options (headers, for example). */
export type ScopeResolver = (params: MiddlewareCallOptions) => Scope | PromiseLike<Scope>;

export interface ContextMemoryMiddlewareOptions
  extends Omit<
    ContextManagerOptions,
    'model' | 'summarizer' | 'modelSummarizer' | 'flush' | 'backgroundCompaction' | 'offloadStore'
  > {
  /**
   * Model id used to look up the context window and pick the tokenizer.
   * @default the wrapped model's `modelId`
   */
  model?: string;
  /**
   * How prompts are summarized.
   * @default the model summarizer on `summarizerModel` (or the wrapped model itself), falling
   * back to the extractive summarizer when the model call fails
   */
  summarizer?: Summarizer;
  /**
   * The model that writes summaries (any AI SDK 6 or 7 language model object). A cheaper model
   * than the one being wrapped is a common choice.
   * @default the wrapped model
   */
  summarizerModel?: LanguageModelLike;
  /** Where offloaded payloads go (for `reload_context`). @default one in-memory store */
  offloadStore?: ContextManagerOptions['offloadStore'];
  /**
   * The silent memory-flush turn before a compaction: `true` uses the summarizer model; an object
   * may set the folder and thresholds, and `complete` to use another model call.
   * @default false
   */
  flush?: boolean | Partial<FlushOptions>;
  /** See `ContextManagerOptions.backgroundCompaction`; the default is core's. */
  backgroundCompaction?: boolean;
  /**
   * Whose conversation a call is: a fixed scope, or a function of the call options.
   * `providerOptions.ctxmem` (`{ userId, sessionId, agentId }`) on a call wins over it.
   * @default {} (every call is one conversation: give each chat a `sessionId`)
   */
  scope?: Scope | ScopeResolver;
  /**
   * The scope long-term memories are stored and searched in, from the conversation's scope. The
   * default drops `sessionId` when there is a `userId`, so that what is learned in one chat is
   * found in the user's next, while a session without a user keeps its memories to itself.
   * @default defaultMemoryScope from `@ctxmem/core`
   */
  memoryScope?: (scope: Scope) => Scope;
}

/** What the middleware exposes besides the AI SDK middleware fields. */
export interface ContextMemoryControls extends ContextEventSource {
  /**
   * The stores the middleware reads and writes, for `memoryTools`: the memory search (when
   * `memory` was configured), the history store (when given) and the offload store.
   */
  readonly stores: MemoryToolsOptions;
  /**
   * The context manager of a model id (one is created per model id on its first call), or of
   * the only model when no id is given. `undefined` before the first call.
   */
  manager(modelId?: string): ContextManager | undefined;
  /** Resolves when background compactions and memory flushes have settled. */
  idle(): Promise<void>;
  /** Forgets a conversation: its compaction state, conversions and stored history. */
  clear(scope?: Scope): Promise<void>;
}

/** The model below the middleware, as `wrapGenerate` and `wrapStream` call it again. */
export interface WrappedModelLike<Params, GenerateResult, StreamResult> {
  doGenerate(params: Params): PromiseLike<GenerateResult>;
  doStream(params: Params): PromiseLike<StreamResult>;
}

/**
 * The middleware functions: generic, so that they fit AI SDK 6 and 7 alike. `transformParams`
 * fits the prompt to the budget; `wrapGenerate` and `wrapStream` send it, hand the provider's
 * usage to the context manager, and recover once from a "too long" rejection (see
 * `ContextManager.callModel`).
 */
export interface ContextMemoryTransform {
  transformParams<Params extends MiddlewareCallOptions>(options: {
    type: 'generate' | 'stream';
    params: Params;
    model: LanguageModelLike;
  }): Promise<Params>;
  wrapGenerate<Params extends MiddlewareCallOptions, GenerateResult, StreamResult>(options: {
    doGenerate: () => PromiseLike<GenerateResult>;
    doStream: () => PromiseLike<StreamResult>;
    params: Params;
    model: WrappedModelLike<Params, GenerateResult, StreamResult>;
  }): Promise<GenerateResult>;
  wrapStream<
    Params extends MiddlewareCallOptions,
    GenerateResult,
    StreamResult extends { stream: ReadableStream<StreamPartLike> },
  >(options: {
    doGenerate: () => PromiseLike<GenerateResult>;
    doStream: () => PromiseLike<StreamResult>;
    params: Params;
    model: WrappedModelLike<Params, GenerateResult, StreamResult>;
  }): Promise<StreamResult>;
}

/** A `LanguageModelMiddleware` for AI SDK 7 (`wrapLanguageModel`), plus `ContextMemoryControls`. */
export interface ContextMemoryMiddleware extends ContextMemoryTransform, ContextMemoryControls {
  readonly specificationVersion: 'v4';
}

/** A `LanguageModelV3Middleware` for AI SDK 6 (`wrapLanguageModel`), plus `ContextMemoryControls`. */
export interface ContextMemoryMiddlewareV3 extends ContextMemoryTransform, ContextMemoryControls {
  readonly specificationVersion: 'v3';
}

interface ModelSession {
  manager: ContextManager;
  conversions: PromptConversionCache;
}

/**
 * What `transformParams` prepared for a call, kept with the params it returned, so that
 * `wrapGenerate` and `wrapStream` can prepare the call again after a "too long" rejection.
 */
interface PreparedCall {
  manager: ContextManager;
  messages: readonly Message[];
  options: PrepareOptions;
  prepared: PrepareResult;
  /** The params for another preparation of the same call. */
  paramsFor(prepared: PrepareResult): MiddlewareCallOptions;
}

function checkOptions(options: ContextMemoryMiddlewareOptions): void {
  if (options.summarizerModel !== undefined && !isLanguageModel(options.summarizerModel)) {
    throw new InvalidArgumentError({
      message: 'summarizerModel must be an AI SDK language model object (with doGenerate)',
      argument: 'summarizerModel',
    });
  }
  const { scope } = options;
  if (scope !== undefined && typeof scope !== 'function') checkScope(scope);
}

function createContextMemory(
  options: ContextMemoryMiddlewareOptions,
): ContextMemoryTransform & ContextMemoryControls {
  checkOptions(options);
  const {
    model: modelIdOption,
    summarizer,
    summarizerModel,
    flush,
    scope: scopeOption = {},
    offloadStore = createInMemoryOffloadStore(),
    cacheSize = 1_000,
    counter,
    memory,
    memoryScope = defaultMemoryScope,
    ...managerOptions
  } = options;
  const { store, search } = scopedMemory(
    {
      ...(memory?.store ? { store: memory.store } : {}),
      ...(memory?.search || memory?.store
        ? { search: memory.search ?? createMemorySearch({ store: memory.store! }) }
        : {}),
    },
    memoryScope,
  );
  // The store and search above already map to the memory scope (the tools share them).
  const resolvedMemory = memory
    ? {
        ...memory,
        scope: (scope: Scope) => scope,
        ...(store ? { store } : {}),
        ...(search ? { search } : {}),
      }
    : undefined;
  const sessions = new Map<string, ModelSession>();
  // The app's `onEvent` sees every event; a request's status subscribes to its scope's only.
  const events = createScopedEvents(managerOptions.onEvent);
  const preparedCalls = new WeakMap<object, PreparedCall>();

  function sessionFor(model: LanguageModelLike): ModelSession {
    const modelId = modelIdOption ?? model.modelId;
    const existing = sessions.get(modelId);
    if (existing) return existing;
    const tokenCounter = counter ?? createTokenCounter({ model: modelId });
    // The wrapped model is the model below this middleware: calling it never re-enters it.
    const complete = summarizerModel
      ? languageModelComplete(summarizerModel)
      : languageModelComplete(model, { bypass: false });
    const flushOptions = flush === true ? { complete } : flush ? { complete, ...flush } : undefined;
    const window =
      (summarizerModel ? resolveContextWindow(summarizerModel.modelId) : undefined) ??
      managerOptions.contextWindow ??
      resolveContextWindow(modelId);
    const manager = createContextManager({
      ...managerOptions,
      onEvent: events.dispatch,
      model: modelId,
      counter: tokenCounter,
      ...(summarizer
        ? { summarizer }
        : {
            modelSummarizer: {
              complete,
              ...(window === undefined ? {} : { contextWindow: window }),
              name: `ai-sdk:${summarizerModel?.modelId ?? modelId}`,
            },
          }),
      offloadStore,
      cacheSize,
      ...(resolvedMemory ? { memory: resolvedMemory } : {}),
      ...(flushOptions ? { flush: flushOptions } : {}),
    });
    const session = { manager, conversions: new PromptConversionCache(cacheSize) };
    sessions.set(modelId, session);
    return session;
  }

  async function resolveScope(params: MiddlewareCallOptions): Promise<Scope> {
    if (typeof scopeOption !== 'function') return scopeOption;
    return checkScope(await scopeOption(params));
  }

  return {
    async transformParams({ params, model }) {
      const { ctxmem, providerOptions } = splitProviderOptions(params.providerOptions);
      const stripped = ctxmem === undefined ? params : { ...params, providerOptions };
      if (ctxmem?.bypass) return stripped;
      const scope = mergeScope(await resolveScope(stripped), ctxmem);
      const version: PromptVersion = model.specificationVersion === 'v4' ? 'v4' : 'v3';
      const { manager, conversions } = sessionFor(model);
      const prompt = params.prompt as readonly unknown[];
      const converted: ConvertedPrompt = conversions.fromPrompt(scopeKey(scope), prompt, version);
      const options: PrepareOptions = {
        scope,
        ...(params.abortSignal ? { abortSignal: params.abortSignal } : {}),
        ...(params.tools ? { tools: params.tools } : {}),
        ...(params.maxOutputTokens === undefined
          ? {}
          : { maxOutputTokens: params.maxOutputTokens }),
      };
      const prepared = await manager.prepare(converted.messages, options);
      const paramsFor = (result: PrepareResult) => {
        const next = conversions.toPrompt(result.messages, converted, version);
        // A new object every time: it is the key `wrapGenerate` finds this call by.
        return next === prompt ? { ...stripped } : { ...stripped, prompt: next };
      };
      const transformed = paramsFor(prepared);
      preparedCalls.set(transformed, {
        manager,
        messages: converted.messages,
        options,
        prepared,
        paramsFor,
      });
      return transformed;
    },
    async wrapGenerate({ doGenerate, params, model }) {
      const call = preparedCalls.get(params);
      if (!call) return doGenerate();
      return call.manager.callModel({
        messages: call.messages,
        options: call.options,
        prepared: call.prepared,
        send: async (prepared) =>
          prepared === call.prepared
            ? doGenerate()
            : model.doGenerate(call.paramsFor(prepared) as typeof params),
        usage: (result) => providerUsageOf((result as { usage?: unknown } | undefined)?.usage),
      });
    },
    async wrapStream({ doStream, params, model }) {
      const call = preparedCalls.get(params);
      if (!call) return doStream();
      // The provider rejects a request before its first part: the stream is read up to it, so
      // the rejection reaches `callModel` (and the retry) before any part reaches the caller.
      return call.manager.callModel({
        messages: call.messages,
        options: call.options,
        prepared: call.prepared,
        send: async (prepared) => {
          const result = await (prepared === call.prepared
            ? doStream()
            : model.doStream(call.paramsFor(prepared) as typeof params));
          return acceptedStream(result, (usage) => call.manager.observeUsage(prepared, usage));
        },
      });
    },
    subscribe: events.subscribe,
    stores: {
      ...(search ? { search } : {}),
      ...(managerOptions.historyStore ? { history: managerOptions.historyStore } : {}),
      offload: offloadStore,
    },
    manager(modelId) {
      if (modelId !== undefined) return sessions.get(modelId)?.manager;
      return sessions.size === 1 ? sessions.values().next().value?.manager : undefined;
    },
    async idle() {
      await Promise.all([...sessions.values()].map(({ manager }) => manager.idle()));
    },
    async clear(scope = {}) {
      const key = scopeKey(scope);
      await Promise.all(
        [...sessions.values()].map(({ manager, conversions }) => {
          conversions.delete(key);
          return manager.clear(scope);
        }),
      );
    },
  };
}

/**
 * A language model middleware for AI SDK 7 that keeps every prompt inside the model's budget:
 * it converts the prompt to ctxmem's messages, lets the context manager compact it when a
 * threshold is crossed (tool runs, offloads, a rolling summary — computed once per crossing and
 * reused while the conversation grows), injects relevant memories before the newest user message,
 * and converts back, keeping `providerOptions`, files, reasoning and approvals as they were.
 *
 * The provider has the last word: the input tokens each response reports teach the manager how
 * far its count is from the provider's (the budget then uses the provider's count), and when the
 * provider still rejects a request as too long (`generateText`, or `streamText` before its first
 * part), the call is prepared again, smaller, and sent once more; a second rejection throws
 * `ContextOverflowError` (see `ContextManager.callModel`).
 *
 * Zero configuration works for known model ids: the window comes from the registry, and the
 * wrapped model writes the summaries. Per-request scope goes in `providerOptions.ctxmem`
 * (`{ userId, sessionId, agentId }`), which is removed before the provider sees the call.
 * Also works with AI SDK 6 models at run time; for AI SDK 6 types use `contextMemoryMiddlewareV3`.
 *
 * @example
 * const model = wrapLanguageModel({ model: openai('gpt-4o'), middleware: contextMemoryMiddleware() });
 */
export function contextMemoryMiddleware(
  options: ContextMemoryMiddlewareOptions = {},
): ContextMemoryMiddleware {
  requireOptions(options, 'contextMemoryMiddleware');
  return { specificationVersion: 'v4', ...createContextMemory(options) };
}

/** `contextMemoryMiddleware` typed for AI SDK 6 (`LanguageModelV3Middleware`). */
export function contextMemoryMiddlewareV3(
  options: ContextMemoryMiddlewareOptions = {},
): ContextMemoryMiddlewareV3 {
  requireOptions(options, 'contextMemoryMiddlewareV3');
  return { specificationVersion: 'v3', ...createContextMemory(options) };
}

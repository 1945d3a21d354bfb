import {
  type ContextManager,
  type ContextManagerOptions,
  createContextManager,
  createMemorySearch,
  createTokenCounter,
  defaultMemoryScope,
  type FlushOptions,
  InvalidArgumentError,
  type MemoryOptions,
  type MemorySearcher,
  type MemoryToolsOptions,
  resolveContextWindow,
  type Scope,
  type Summarizer,
  type TokenCounter,
} from '@ctxmem/core';
import { requireOptions, scopedMemory } from '@ctxmem/core/adapter-kit';
import { type ChatModelLike, chatModelComplete, isChatModel } from './chat-model-complete.js';
import { chatModelId, chatModelMaxOutputTokens, chatModelWindow } from './chat-model-settings.js';

/** The options ContextChatMemory and the agent middleware share. */
export interface ContextOptions
  extends Omit<
    ContextManagerOptions,
    'model' | 'summarizer' | 'modelSummarizer' | 'flush' | 'memory'
  > {
  /**
   * The model the prompts are for: a model id, or a LangChain chat model (its `model` /
   * `modelName` and profile give the id and the window). Picks the context window (unless
   * `contextWindow` is set) and the tokenizer. A chat model also writes the summaries unless
   * `summarizerModel` or `summarizer` is given.
   * @default undefined (then `contextWindow` is required)
   */
  model?: string | ChatModelLike;
  /**
   * The chat model that writes summaries (any LangChain chat model; a cheaper one than the
   * agent's is a common choice). It falls back to the extractive summarizer when a call fails.
   * @default `model` when it is a chat model, else none (extractive summaries)
   */
  summarizerModel?: ChatModelLike;
  /**
   * Replaces the summarizer entirely. The extractive summarizer stays its fallback.
   * @default the model summarizer on `summarizerModel`, else the extractive summarizer
   */
  summarizer?: Summarizer;
  /**
   * Long-term memory: where extracted cards are stored (`store`) and how relevant ones are found
   * (`search`, by default a hybrid search over `store`), plus how many are shown (`topK`,
   * `maxTokens`, `minScore`, `searchTimeoutMs`).
   * @default undefined (no long-term memory)
   */
  memory?: Omit<MemoryOptions, 'inject'>;
  /**
   * The scope long-term memories are stored and searched in, from the conversation's scope. The
   * default drops `sessionId` when there is a `userId`, so that what is learned in one chat is
   * found in the user's next, while a session without a user keeps its memories to itself.
   * @default defaultMemoryScope from `@ctxmem/core`
   */
  memoryScope?: (scope: Scope) => Scope;
  /**
   * The silent memory-flush turn before a compaction: `true` uses the summarizer model; an object
   * may set the folder and thresholds, and `complete` to use another model call.
   * @default false
   */
  flush?: boolean | Partial<FlushOptions>;
}

/** What the adapters build from `ContextOptions`. */
export interface LangChainContext {
  readonly manager: ContextManager;
  readonly counter: TokenCounter;
  /** The memory search, scoped with `memoryScope`, when long-term memory is configured. */
  readonly search?: MemorySearcher;
  /** The stores for `memoryTools`: search (scoped), history and offload. */
  readonly stores: MemoryToolsOptions;
  /** The output limit `model` asks for, when it is a chat model that sets one. */
  readonly maxOutputTokens?: number;
}

function checkOptions(options: ContextOptions): void {
  const { model, summarizerModel } = options;
  if (model !== undefined && typeof model !== 'string' && !isChatModel(model)) {
    throw new InvalidArgumentError({
      message: 'model must be a model id or a LangChain chat model (an object with invoke)',
      argument: 'model',
    });
  }
  if (summarizerModel !== undefined && !isChatModel(summarizerModel)) {
    throw new InvalidArgumentError({
      message: 'summarizerModel must be a LangChain chat model (an object with invoke)',
      argument: 'summarizerModel',
    });
  }
}

/**
 * Builds the context manager and memory wiring for an adapter. `recordHistory: false` keeps the
 * history store away from the manager, for hosts whose message list is not the original history
 * (an agent whose state holds the compacted messages records the originals itself).
 */
export function createContext(
  options: ContextOptions,
  wiring: { recordHistory: boolean; injectMemories: boolean },
): LangChainContext {
  requireOptions(options, 'createContext');
  const { recordHistory, injectMemories } = requireOptions(wiring, 'createContext');
  checkOptions(options);
  const {
    model,
    summarizerModel,
    summarizer,
    memory,
    memoryScope = defaultMemoryScope,
    flush,
    historyStore,
    counter: counterOption,
    contextWindow: contextWindowOption,
    ...managerOptions
  } = options;
  const modelId = typeof model === 'string' ? model : chatModelId(model);
  const contextWindow =
    contextWindowOption ?? (typeof model === 'string' ? undefined : chatModelWindow(model));
  const counter = counterOption ?? createTokenCounter(modelId ? { model: modelId } : {});
  const writer = summarizerModel ?? (typeof model === 'string' ? undefined : model);
  const complete = writer ? chatModelComplete(writer) : undefined;

  let summarizerOptions: Pick<ContextManagerOptions, 'summarizer' | 'modelSummarizer'> = {};
  if (summarizer) summarizerOptions = { summarizer };
  else if (writer && complete) {
    const writerId = chatModelId(writer);
    const writerOutput = chatModelMaxOutputTokens(writer);
    // The summarizer's own window: its requests are chunked to fit it.
    const writerWindow =
      chatModelWindow(writer) ??
      (writerId ? resolveContextWindow(writerId) : undefined) ??
      contextWindow ??
      (modelId ? resolveContextWindow(modelId) : undefined);
    summarizerOptions = {
      modelSummarizer: {
        complete,
        ...(writerWindow === undefined ? {} : { contextWindow: writerWindow }),
        // LangChain has no per-call output limit: the model's own maxTokens is what it will
        // produce, so that is what each summary request reserves in the window.
        ...(writerOutput === undefined ||
        (writerWindow !== undefined && writerOutput >= writerWindow)
          ? {}
          : { maxOutputTokens: writerOutput }),
        name: `langchain:${writerId ?? 'chat-model'}`,
      },
    };
  }

  let flushOptions: FlushOptions | undefined;
  if (flush === true || (typeof flush === 'object' && flush.complete === undefined)) {
    if (!complete) {
      throw new InvalidArgumentError({
        message:
          'flush needs a chat model: pass summarizerModel, a chat model as model, or flush.complete',
        argument: 'flush',
      });
    }
    flushOptions = { ...(typeof flush === 'object' ? flush : {}), complete };
  } else if (typeof flush === 'object' && flush.complete) {
    flushOptions = flush as FlushOptions;
  }

  // The manager searches and files memories under `memoryScope` itself; the memory tools get the
  // same view through scopedMemory, so both reach the same cards.
  const search =
    memory?.search ?? (memory?.store ? createMemorySearch({ store: memory.store }) : undefined);
  const scoped = scopedMemory(
    { ...(memory?.store ? { store: memory.store } : {}), ...(search ? { search } : {}) },
    memoryScope,
  );

  const manager = createContextManager({
    ...managerOptions,
    ...(modelId ? { model: modelId } : {}),
    ...(contextWindow === undefined ? {} : { contextWindow }),
    counter,
    ...summarizerOptions,
    ...(recordHistory && historyStore ? { historyStore } : {}),
    ...(memory?.store || search
      ? {
          memory: {
            ...memory,
            ...(search ? { search } : {}),
            scope: memoryScope,
            inject: injectMemories,
          },
        }
      : {}),
    ...(flushOptions ? { flush: flushOptions } : {}),
  });

  const maxOutputTokens = typeof model === 'string' ? undefined : chatModelMaxOutputTokens(model);
  return {
    manager,
    counter,
    ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
    ...(scoped.search ? { search: scoped.search } : {}),
    stores: {
      ...(scoped.search ? { search: scoped.search } : {}),
      ...(historyStore ? { history: historyStore } : {}),
      offload: manager.offloadStore,
    },
  };
}

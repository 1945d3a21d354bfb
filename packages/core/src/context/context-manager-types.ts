/** The public options and results of `createContextManager`, apart from the parts that implement it. */
import type { Budget } from '../budget/index.js';
import type { HistoryMode } from '../compression/index.js';
import type {
  CompactionReport,
  CompleteFn,
  CompressionSettings,
  EventListener,
  HistoryStore,
  LeaseStore,
  MemoryCardDraft,
  MemoryStore,
  Message,
  OffloadStore,
  Scope,
  Summarizer,
  TokenCounter,
} from '../contracts/index.js';
import type { MemorySearcher } from '../inject/index.js';
import type { CountCalibrationOptions, ProviderUsage } from '../provider/index.js';
import type { CircuitBreakerOptions, ModelSummarizerOptions } from '../summarize/index.js';
import type { TelemetryOptions } from '../telemetry/index.js';

export interface MemoryOptions {
  /**
   * Maps a conversation's scope to the scope its long-term memories are stored and searched in.
   * @default defaultMemoryScope (drops `sessionId` when there is a `userId`)
   */
  scope?: (scope: Scope) => Scope;
  /** Where extracted memory cards are stored. */
  store?: MemoryStore;
  /** Finds relevant memories for injection and `search_memory`. */
  search?: MemorySearcher;
  /** Inject relevant memories before the newest user message. @default true when `search` is set */
  inject?: boolean;
  /** Memories injected at most. @default 5 */
  topK?: number;
  /** Token budget of the injected block. @default 800 */
  maxTokens?: number;
  /**
   * Memories scoring below this are not injected, so weak matches do not cost tokens or mislead
   * the model (the scale is the search's; about 1 means every query word matched).
   * @default 0.1
   */
  minScore?: number;
  /** Give up on the search after this long and send the prompt without memories. @default 2000 */
  searchTimeoutMs?: number;
}

export interface FlushOptions {
  /** The model call for the silent turn. */
  complete: CompleteFn;
  /** Folder for `MEMORY.md` and `memory/YYYY-MM-DD.md`. When unset, notes go only to the card store. */
  root?: string;
  /** @default 20000 */
  reserveFloor?: number;
  /** @default 4000 */
  softThreshold?: number;
  /** @default 30000 */
  timeoutMs?: number;
}

export interface ContextManagerOptions {
  /** Model id: picks the context window from the registry and the token encoding. */
  model?: string;
  /** Context window in tokens. @default from the model registry (required when the model is unknown) */
  contextWindow?: number;
  /** Compact when the prompt reaches this share of the window. @default 0.8 */
  threshold?: number;
  /** After a compaction the prompt lands near this share of the window. @default 0.6 */
  retainedRatio?: number;
  /** Tokens kept free for the next turn. @default { ratio: 0.1, min: 2000 } */
  reserve?: { ratio?: number; min?: number };
  /** Also compact when the history holds more messages than this. @default undefined (off) */
  maxMessages?: number;
  /** @default 'compressed' */
  history?: HistoryMode;
  /** Strategy settings (tool-run threshold, offload size, messages kept, ...). */
  settings?: Partial<CompressionSettings>;
  /** @default createTokenCounter({ model }) */
  counter?: TokenCounter;
  /**
   * How ctxmem's counts are corrected toward the provider's. The budget divides the window by a
   * count ratio (provider tokens per counted token): before the provider has reported anything
   * it is `prior` (1.2 for a model without a public tokenizer, else 1; see `defaultCountRatio`),
   * then what the provider reports (usage handed over with `observeUsage` or `callModel`, and
   * the counts in its overflow errors) teaches it (see `createCountCalibration`). One ratio per
   * manager, shared by its sessions and written with their working state. `false` takes counts
   * as they are (ratio 1) and learns nothing.
   * @default { prior: defaultCountRatio(model), learn: true }
   */
  calibration?: CountCalibrationOptions | false;
  /**
   * Summarizes evicted rounds. It runs behind a circuit breaker (`summarizerCircuitBreaker`),
   * and the extractive summarizer is always kept as its fallback.
   * @default the model summarizer when `modelSummarizer` is set, else the extractive summarizer
   */
  summarizer?: Summarizer;
  /**
   * A model that writes the summaries: its call (`complete`, which adapters build from an AI SDK
   * or LangChain model), its context window and a name. The manager builds the model summarizer
   * on it, with the manager's counter. Ignored when `summarizer` is set.
   * @default undefined (extractive summaries)
   */
  modelSummarizer?: Omit<ModelSummarizerOptions, 'counter'>;
  /**
   * Stops calling a summarizer that keeps failing, so that a dead model costs one fallback, not a
   * timeout, per turn (see `withCircuitBreaker`); `false` turns it off.
   * @default { failures: 3, cooldownMs: 60000 }
   */
  summarizerCircuitBreaker?: CircuitBreakerOptions | false;
  /** @default an in-memory offload store */
  offloadStore?: OffloadStore;
  /** Keeps the original history (for `recall_conversation`) and the working state across processes. */
  historyStore?: HistoryStore;
  /**
   * Leases shared by every instance serving the same sessions (`stores.leases` of
   * `@ctxmem/postgres` or `@ctxmem/redis`, or `createInMemoryLeaseStore()` in one process). The
   * instance that takes a session's `compaction` lease calls the summarizer; another that must
   * compact the same session meanwhile fits its prompt with the extractive summarizer for that
   * call, writes nothing, and adopts the stored summary on its next call. Without leases two
   * instances compacting at once may both call the summarizer (the stored state keeps one).
   * @default undefined
   */
  leases?: LeaseStore;
  memory?: MemoryOptions;
  /** The silent memory-flush turn before compaction. Off unless set. */
  flush?: FlushOptions;
  /**
   * Compact in the background once the prompt passes `threshold − 0.1`, so that the summary is
   * ready when the threshold is reached and the user's turn waits for nothing. @default false
   */
  backgroundCompaction?: boolean;
  /** Sessions whose compaction state is kept in memory. @default 1000 */
  cacheSize?: number;
  /**
   * Repair a history whose tool calls and results do not pair up (late results moved up to their
   * call, synthetic error results for calls without one, orphan results turned into user text,
   * repeated ids renamed; see `repairMessages`) with an `input-repaired` event. When off, such a
   * history is rejected with `InvalidMessageError` instead: a prompt every provider rejects is
   * never sent. The stored original history is left as given either way.
   * @default true
   */
  repairInput?: boolean;
  /**
   * Prepared calls recorded per session (`WorkingState.calls`, what `ctxmem inspect` shows): the
   * last this many are kept, so the record never grows without limit. Records cost no store
   * round trip of their own: they are written with the working state that compactions write
   * anyway. `0` turns recording off.
   * @default 50
   */
  recordedCalls?: number;
  onEvent?: EventListener;
  /**
   * OpenTelemetry spans for each prepare, compaction, summarizer run and model call, memory
   * search, memory flush and store operation, on the global tracer provider or `tracer`, nested
   * under the span active when the manager is called (see `TelemetryOptions`). No message content
   * unless `recordContent`; no scope ids unless `recordScope`.
   * @default undefined (off)
   */
  telemetry?: TelemetryOptions;
}

export interface PrepareOptions {
  /** Whose conversation this is. @default {} */
  scope?: Scope;
  /** Compact now, even under the threshold (manual trigger). @default false */
  force?: boolean;
  abortSignal?: AbortSignal;
  /**
   * The tool definitions the request carries, as it carries them (see `countToolDefinitions`):
   * their tokens come off the window before the messages get any.
   * @default [] (no tools)
   */
  tools?: readonly unknown[];
  /**
   * The output the request asks for (`maxOutputTokens`, `max_tokens`): reserved exactly. When
   * unset, the manager's `reserve` stands in for it.
   * @default undefined
   */
  maxOutputTokens?: number;
  /**
   * Tokens the caller adds around the prepared messages, which the manager does not see: a
   * prompt template's own system message and the new input of a chain, for example. They come off
   * the window like tool definitions.
   * @default 0
   */
  reservedTokens?: number;
}

/** Options of `ContextManager.relevantMemories`. */
export interface RelevantMemoriesOptions {
  /** Token budget of the rendered block. @default the manager's `memory.maxTokens` (800) */
  maxTokens?: number;
  abortSignal?: AbortSignal;
}

/** The memories relevant to a query, rendered as the `## Relevant Memories` block. */
export interface RelevantMemories {
  text: string;
  /** Number of memory cards in `text`. */
  cards: number;
}

export interface PrepareResult {
  /** The prompt to send: within the budget, pairs intact, newest user message verbatim. */
  messages: Message[];
  /** Tokens of `messages`. */
  tokens: number;
  /**
   * ctxmem's count of the request's whole input: `tokens` plus the tool definitions and the
   * tokens reserved around the messages (`budget.fixedTokens`). What a provider's reported input
   * tokens are compared with.
   */
  requestTokens: number;
  /**
   * The figures this request was fitted against: the window less the output reserve, divided by
   * the count ratio, less the tool definitions (`fixedTokens`).
   * `(tokens + budget.fixedTokens) × budget.countRatio + budget.reserveTokens` never exceeds
   * `budget.contextWindow`.
   */
  budget: Budget;
  /** Whether this prompt comes from a new compaction (run now, or prepared in the background and adopted now). */
  compacted: boolean;
  report?: CompactionReport;
  /** Memory cards extracted by this call's compaction. */
  cards: MemoryCardDraft[];
  /** Number of memories injected. */
  injected: number;
}

/** One model call through `ContextManager.callModel`. */
export interface ModelCallRequest<Result> {
  /** The history, as for `prepare`. */
  messages: readonly Message[];
  /** As for `prepare`; the retry uses them too. @default {} */
  options?: PrepareOptions;
  /** Sends a prepared prompt to the model: called once, or twice after a "too long" rejection. */
  send: (prepared: PrepareResult) => Promise<Result>;
  /**
   * The provider's usage in a result, handed to `observeUsage`. Streams hand theirs over when
   * their last chunk arrives, with `observeUsage` themselves.
   * @default undefined (no usage read)
   */
  usage?: (result: Result) => ProviderUsage | undefined;
  /**
   * The first attempt's preparation when the caller has made it already (the AI SDK middleware
   * prepares in `transformParams`).
   * @default prepared by `callModel`
   */
  prepared?: PrepareResult;
}

/** The count ratio the manager's budgets use now, and what it was learned from. */
export interface CalibrationStatus {
  /** Provider tokens per counted token. */
  ratio: number;
  /** Provider reports it was learned from (0: the prior alone). */
  observations: number;
}

export interface ContextManager {
  /** The budget of a request without tool definitions, output or reserved tokens, at the current count ratio. */
  readonly budget: Budget;
  readonly counter: TokenCounter;
  readonly offloadStore: OffloadStore;
  readonly historyStore: HistoryStore | undefined;
  /** Turns a history into a prompt that fits the budget. */
  prepare(messages: readonly Message[], options?: PrepareOptions): Promise<PrepareResult>;
  /**
   * Prepares a history, sends it with `send`, and recovers once when the provider rejects it as
   * too long (`detectContextOverflow`): the count the provider's error gives (or, without one, a
   * smaller share; see `planOverflowRetry`) budgets a second preparation, which is sent once
   * more, with a `context-overflow` event and the retry's call record saying so. A second
   * rejection throws `ContextOverflowError` with both attempts' counts; never a loop. So does a
   * rejection no smaller request can answer (the system messages and the newest user message
   * alone exceed the provider's count), with the `BudgetExceededError` as its cause. Any other
   * error, and any error once `abortSignal` has fired, is thrown as it is. A result's usage, when
   * `usage` reads it, feeds the count calibration.
   */
  callModel<Result>(request: ModelCallRequest<Result>): Promise<Result>;
  /**
   * Hands over what the provider reported for a prepared request: its input tokens are compared
   * with `prepared.requestTokens` to learn the count ratio (see `createCountCalibration`), and
   * recorded in the call's record. A no-op for a result of another manager.
   */
  observeUsage(prepared: PrepareResult, usage: ProviderUsage): void;
  /** The count ratio budgets use now, and how many provider reports it was learned from. */
  calibration(): CalibrationStatus;
  /**
   * The long-term memories relevant to `query` in the conversation `scope` (searched in its memory
   * scope), rendered within `maxTokens`; undefined when there is no memory search, nothing
   * relevant, or the search failed or timed out (a `memory-injection` event says so). `prepare`
   * injects the same block; hosts that place memories themselves (a chain's `memories` variable)
   * call this.
   */
  relevantMemories(
    scope: Scope,
    query: string,
    options?: RelevantMemoriesOptions,
  ): Promise<RelevantMemories | undefined>;
  /** Forgets a session's compaction state (and its history and working state in the store). */
  clear(scope?: Scope): Promise<void>;
  /** Resolves when background work (flushes, background compactions) has settled. */
  idle(): Promise<void>;
}

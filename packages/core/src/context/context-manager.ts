import { type Budget, checkTrigger, resolveBudget, resolveContextWindow } from '../budget/index.js';
import { KeyedLru } from '../cache/index.js';
import { compact, type HistoryMode } from '../compression/index.js';
import type {
  CompactionReport,
  CompleteFn,
  CompressionSettings,
  EventListener,
  HistoryStore,
  MemoryCardDraft,
  MemoryStore,
  Message,
  OffloadStore,
  Scope,
  StructuredSummary,
  Summarizer,
  TokenCounter,
} from '../contracts/index.js';
import {
  BudgetExceededError,
  ConflictError,
  CtxmemError,
  InvalidArgumentError,
  InvalidMessageError,
  ScopeRequiredError,
} from '../errors/index.js';
import { flushThresholdTokens, requestFlushNotes, writeFlushNotes } from '../flush/index.js';
import {
  type MemorySearcher,
  placeMemoryInjection,
  renderMemoryInjection,
} from '../inject/index.js';
import { lastUserMessage, messageText, validateMessages } from '../messages/index.js';
import {
  checkToolPairing,
  repairMessages,
  repairToolPairing,
} from '../messages/validate-messages.js';
import { createInMemoryOffloadStore } from '../offload/index.js';
import { scopeKey } from '../storage/index.js';
import {
  type CircuitBreakerOptions,
  createExtractiveSummarizer,
  createModelSummarizer,
  type ModelSummarizerOptions,
  withCircuitBreaker,
  withFallback,
} from '../summarize/index.js';
import { countToolDefinitions, createTokenCounter } from '../tokens/index.js';
import { createShapeCheck } from './check-new-messages.js';
import { KeyedMutex } from './keyed-mutex.js';
import { messageFingerprint } from './message-fingerprint.js';

/**
 * The default scope of long-term memories: a signed-in user's memories follow them from chat to
 * chat (the session is dropped), while an anonymous session keeps its memories to itself.
 */
export function defaultMemoryScope(scope: Scope): Scope {
  if (scope.userId === undefined) return scope;
  const { sessionId: _sessionId, ...userScope } = scope;
  return userScope;
}

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
  onEvent?: EventListener;
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
   * The figures this request was fitted against: the window less the tool definitions
   * (`fixedTokens`) and the output reserve. `tokens + budget.fixedTokens + budget.reserveTokens`
   * never exceeds `budget.contextWindow`.
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

interface CompactionEntry {
  /** Fingerprints of the original messages the compacted output stands for. */
  covered: string[];
  /** The compacted form of those messages. */
  output: Message[];
  summary?: StructuredSummary;
  cycle: number;
  flushedCycle?: number;
  /** Version of the working state in the history store. */
  version: number;
}

interface SessionState {
  entry?: CompactionEntry;
  /** How many original messages were appended to the history store. */
  recorded?: number;
  flushedCycle?: number;
  background?: Promise<void>;
  /** A compaction prepared in the background, adopted when the threshold is reached. */
  pending?: { entry: CompactionEntry; report: CompactionReport; cards: MemoryCardDraft[] };
  /** The shape check of this conversation's messages: each distinct message is checked once. */
  checkShapes?: ReturnType<typeof createShapeCheck>;
}

export interface ContextManager {
  readonly budget: Budget;
  readonly counter: TokenCounter;
  readonly offloadStore: OffloadStore;
  readonly historyStore: HistoryStore | undefined;
  /** Turns a history into a prompt that fits the budget. */
  prepare(messages: readonly Message[], options?: PrepareOptions): Promise<PrepareResult>;
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

/** One 53-bit hash of a history's message fingerprints, in order. */
function hashFingerprints(fingerprints: readonly string[]): string {
  let first = 0x811c9dc5;
  let second = 0x9747b28c;
  for (const fingerprint of fingerprints) {
    for (let index = 0; index < fingerprint.length; index++) {
      const code = fingerprint.charCodeAt(index);
      first = Math.imul(first ^ code, 0x01000193);
      second = Math.imul(second ^ code, 0x5bd1e995);
      second ^= second >>> 15;
    }
    first = Math.imul(first ^ 0x1f, 0x01000193);
  }
  return `${fingerprints.length}:${(first >>> 0).toString(36)}:${(second >>> 0).toString(36)}`;
}

function matchesPrefix(entry: CompactionEntry, fingerprints: readonly string[]): boolean {
  if (entry.covered.length > fingerprints.length) return false;
  for (let index = entry.covered.length - 1; index >= 0; index--) {
    if (entry.covered[index] !== fingerprints[index]) return false;
  }
  return true;
}

/**
 * Runs `task` with an abort signal that fires after `timeoutMs` (or when `parent` aborts), and
 * rejects at that moment even if the task ignores the signal: the caller never waits longer, and a
 * task that honours the signal stops its work (an HTTP request is cancelled, not abandoned).
 */
function withTimeout<Result>(
  task: (abortSignal: AbortSignal) => Promise<Result>,
  timeoutMs: number,
  parent?: AbortSignal,
): Promise<Result> {
  const controller = new AbortController();
  const onParentAbort = () => controller.abort(parent?.reason);
  parent?.addEventListener('abort', onParentAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new Error(`timed out after ${timeoutMs} ms`);
      controller.abort(error);
      reject(error);
    }, timeoutMs);
  });
  return Promise.race([task(controller.signal), timeout]).finally(() => {
    clearTimeout(timer);
    parent?.removeEventListener('abort', onParentAbort);
  });
}

/**
 * Cheap shape checks on every call (an array of objects with a known role). Deeper problems
 * surface while counting; `explainInvalidInput` then turns them into a typed error.
 */
function assertMessageArray(messages: unknown): asserts messages is readonly Message[] {
  if (!Array.isArray(messages)) {
    throw new InvalidMessageError({
      message: `prepare expects an array of messages, got ${messages === null ? 'null' : typeof messages}.`,
      path: 'messages',
    });
  }
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index] as { role?: unknown } | null;
    if (
      typeof message !== 'object' ||
      message === null ||
      !['system', 'user', 'assistant', 'tool'].includes(message.role as string)
    ) {
      throw new InvalidMessageError({
        message: `messages[${index}] is not a message with a system, user, assistant or tool role.`,
        path: `messages[${index}]`,
      });
    }
  }
}

/**
 * Turns an unexpected failure on malformed input (a TypeError on a missing field, a RangeError on
 * absurdly deep tool arguments) into the validator's typed error with its path. Full validation
 * costs too much for every call, so it only runs once something has already gone wrong.
 */
function explainInvalidInput(error: unknown, messages: readonly Message[]): unknown {
  if (CtxmemError.isInstance(error)) return error;
  try {
    validateMessages(messages);
  } catch (validationError) {
    return validationError;
  }
  return error;
}

/**
 * Restates a prompt that cannot fit in terms of the whole request: what the system messages and
 * the newest user message need, plus the tool definitions and the output reserve, against the
 * window.
 */
function explainBudget(error: unknown, budget: Budget): unknown {
  if (!BudgetExceededError.isInstance(error)) return error;
  const required = error.requiredTokens + budget.fixedTokens + budget.reserveTokens;
  return new BudgetExceededError({
    message: `The request cannot fit the ${budget.contextWindow}-token window: the system messages and the newest user message need ${error.requiredTokens} tokens, tool definitions and other fixed parts ${budget.fixedTokens} and the output reserve ${budget.reserveTokens}, ${required} in all.`,
    requiredTokens: required,
    budgetTokens: budget.contextWindow,
    cause: error,
  });
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The stateful heart of ctxmem: counts, triggers, compacts, remembers the compaction of each
 * session's prefix (so a host that resends the whole history does O(new) work), records the
 * original history, flushes and injects memories. Adapters only convert messages and call
 * `prepare`.
 */
export function createContextManager(options: ContextManagerOptions = {}): ContextManager {
  const {
    model,
    threshold = 0.8,
    retainedRatio = 0.6,
    reserve,
    maxMessages,
    history = 'compressed',
    settings,
    historyStore,
    memory,
    flush,
    backgroundCompaction = false,
    cacheSize = 1_000,
    repairInput = true,
    onEvent,
  } = options;
  const resolvedWindow = options.contextWindow ?? (model ? resolveContextWindow(model) : undefined);
  if (resolvedWindow === undefined) {
    throw new InvalidArgumentError({
      message: model
        ? `Unknown context window for model "${model}": pass contextWindow.`
        : 'Pass contextWindow or a known model id.',
      argument: 'contextWindow',
    });
  }
  const contextWindow = resolvedWindow;
  const budget = resolveBudget({ contextWindow, threshold, retainedRatio, reserve, maxMessages });
  const counter = options.counter ?? createTokenCounter(model ? { model } : {});
  const extractive = createExtractiveSummarizer({ counter });
  const primary =
    options.summarizer ??
    (options.modelSummarizer
      ? createModelSummarizer({ ...options.modelSummarizer, counter })
      : undefined);
  const breaker = options.summarizerCircuitBreaker ?? {};
  // Fail closed: whatever summarizer the user gives, the extractive one is the last fallback.
  const summarizer = primary
    ? withFallback(breaker === false ? primary : withCircuitBreaker(primary, breaker), extractive)
    : extractive;
  const offloadStore = options.offloadStore ?? createInMemoryOffloadStore();
  const sessions = new KeyedLru<SessionState>(cacheSize);
  // Compactions by scope, budget and the exact messages they cover, so that a conversation is
  // summarized once at a given point even when other conversations share its scope.
  const compactions = new KeyedLru<{ entry: CompactionEntry }>(cacheSize);
  /** Tool definition counts by the definitions' JSON (a few tool sets per application). */
  const toolCounts = new KeyedLru<number>(64);
  const mutex = new KeyedMutex();
  const background = new Set<Promise<unknown>>();
  const flushTokens = flush
    ? flushThresholdTokens({
        contextWindow,
        triggerTokens: budget.triggerTokens,
        ...(flush.reserveFloor === undefined ? {} : { reserveFloor: flush.reserveFloor }),
        ...(flush.softThreshold === undefined ? {} : { softThreshold: flush.softThreshold }),
      })
    : Number.POSITIVE_INFINITY;
  const injectEnabled = memory?.search !== undefined && memory.inject !== false;
  const memoryScope = memory?.scope ?? defaultMemoryScope;

  const track = (promise: Promise<unknown>) => {
    background.add(promise);
    promise.finally(() => background.delete(promise));
  };

  function session(key: string): SessionState {
    let state = sessions.get(key);
    if (!state) {
      state = {};
      sessions.set(key, state);
    }
    return state;
  }

  async function storeCards(scope: Scope, cards: readonly MemoryCardDraft[]) {
    if (!memory?.store || cards.length === 0) return;
    try {
      await memory.store.add(memoryScope(scope), cards);
    } catch (error) {
      // Losing extracted cards must not fail the user's turn; the history itself is intact.
      onEvent?.({ type: 'memory-flush', scope, stored: 0, skipped: true, error: errorText(error) });
    }
  }

  function startFlush(
    scope: Scope,
    messages: readonly Message[],
    state: SessionState,
    cycle: number,
  ) {
    if (!flush || state.flushedCycle === cycle) return;
    state.flushedCycle = cycle;
    const run = (async () => {
      try {
        const notes = await withTimeout(
          (abortSignal) =>
            requestFlushNotes({
              complete: flush.complete,
              messages,
              counter,
              maxInputTokens: Math.floor(contextWindow * 0.5),
              source: 'memory-flush',
              abortSignal,
            }),
          flush.timeoutMs ?? 30_000,
        );
        if (!notes) {
          onEvent?.({ type: 'memory-flush', scope, stored: 0, skipped: true });
          return;
        }
        if (flush.root)
          await writeFlushNotes({ root: flush.root, scope: memoryScope(scope), notes });
        await storeCards(scope, notes.longTerm);
        onEvent?.({
          type: 'memory-flush',
          scope,
          stored: notes.longTerm.length + notes.daily.length,
          skipped: false,
        });
      } catch (error) {
        // A failed silent turn is logged, never shown to the user, never blocks the turn.
        onEvent?.({
          type: 'memory-flush',
          scope,
          stored: 0,
          skipped: true,
          error: errorText(error),
        });
      }
    })();
    track(run);
  }

  async function restoreEntry(
    scope: Scope,
    fingerprints: readonly string[],
    messages: readonly Message[],
  ) {
    if (!historyStore) return undefined;
    const stored = await historyStore.getState(scope);
    if (!stored || stored.summarizedCount > messages.length) return undefined;
    const entry: CompactionEntry = {
      covered: fingerprints.slice(0, stored.summarizedCount),
      output: stored.messages,
      cycle: stored.cycle,
      version: stored.version,
      ...(stored.summary ? { summary: stored.summary } : {}),
      ...(stored.flushedCycle === undefined ? {} : { flushedCycle: stored.flushedCycle }),
    };
    return entry;
  }

  /**
   * Records the host's history from position `from` on with a positional append, so that
   * instances sharing the store (behind a load balancer, or retrying one request at the same
   * moment) store each message once. Returns how far the history is recorded. Where the stored
   * history differs from the host's (an edited or regenerated message, another conversation in the
   * scope) or ends before `from` (cleared, expired), the stored messages win and the host's
   * messages past the stored end are appended after them.
   */
  async function recordOriginal(
    store: HistoryStore,
    scope: Scope,
    original: readonly Message[],
    from: number,
  ): Promise<number> {
    let at = from;
    for (let attempt = 0; at < original.length; attempt++) {
      try {
        await store.append(scope, original.slice(at), { at });
        return original.length;
      } catch (error) {
        if (!ConflictError.isInstance(error) || attempt >= 2) throw error;
        at = await store.count(scope);
      }
    }
    return at;
  }

  async function persistEntry(scope: Scope, entry: CompactionEntry): Promise<CompactionEntry> {
    if (!historyStore) return entry;
    try {
      const version = await historyStore.setState(
        scope,
        {
          messages: entry.output,
          summarizedCount: entry.covered.length,
          cycle: entry.cycle,
          ...(entry.summary ? { summary: entry.summary } : {}),
          ...(entry.flushedCycle === undefined ? {} : { flushedCycle: entry.flushedCycle }),
        },
        entry.version,
      );
      return { ...entry, version };
    } catch (error) {
      // Another instance compacted this session first: its state wins, ours is not written, so
      // two instances never both store a summary.
      if (!ConflictError.isInstance(error)) throw error;
      const stored = await historyStore.getState(scope);
      // No stored state means it expired (a TTL): the next write starts again at version 0.
      return { ...entry, version: stored?.version ?? 0 };
    }
  }

  async function runCompaction(
    scope: Scope,
    working: readonly Message[],
    fingerprints: readonly string[],
    previous: CompactionEntry | undefined,
    trigger: NonNullable<ReturnType<typeof checkTrigger>>,
    abortSignal: AbortSignal | undefined,
    state: SessionState,
    callBudget: Budget,
  ) {
    const result = await compact(working, {
      budgetTokens: callBudget.budgetTokens,
      targetTokens: callBudget.targetTokens,
      counter,
      summarizer,
      offloadStore,
      scope,
      history,
      ...(settings ? { settings } : {}),
      ...(previous?.summary ? { previousSummary: previous.summary } : {}),
      force: trigger === 'manual',
      trigger,
      ...(abortSignal ? { abortSignal } : {}),
      ...(onEvent ? { onEvent } : {}),
      repairInput,
    });
    const entry = await persistEntry(scope, {
      covered: [...fingerprints],
      output: result.messages,
      cycle: (previous?.cycle ?? 0) + 1,
      version: previous?.version ?? 0,
      ...(result.summary ? { summary: result.summary } : {}),
      ...(state.flushedCycle === undefined ? {} : { flushedCycle: state.flushedCycle }),
    });
    await storeCards(scope, result.cards);
    return { result, entry };
  }

  async function relevantMemories(
    scope: Scope,
    query: string,
    { maxTokens = memory?.maxTokens ?? 800, abortSignal }: RelevantMemoriesOptions = {},
  ): Promise<RelevantMemories | undefined> {
    if (!memory?.search || query.trim() === '' || maxTokens <= 0) return undefined;
    const topK = memory.topK ?? 5;
    try {
      const hits = await withTimeout(
        (searchSignal) =>
          memory.search!.search(memoryScope(scope), query, {
            topK,
            minScore: memory.minScore ?? 0.1,
            abortSignal: searchSignal,
          }),
        memory.searchTimeoutMs ?? 2_000,
        abortSignal,
      );
      const rendered = renderMemoryInjection(hits, { counter, maxTokens, topK });
      if (!rendered) return undefined;
      return { text: rendered.text, cards: rendered.cards.length };
    } catch (error) {
      onEvent?.({ type: 'memory-injection', scope, cards: 0, tokens: 0 });
      // A scope the store requires but the call lacks is a configuration error, not a miss.
      if (ScopeRequiredError.isInstance(error)) throw error;
      return undefined;
    }
  }

  async function inject(
    scope: Scope,
    messages: Message[],
    tokens: number,
    callBudget: Budget,
    abortSignal?: AbortSignal,
  ) {
    if (!injectEnabled) return { messages, tokens, injected: 0 };
    const newest = lastUserMessage(messages);
    if (!newest) return { messages, tokens, injected: 0 };
    const room = Math.min(memory?.maxTokens ?? 800, callBudget.budgetTokens - tokens);
    // The injected message costs its text plus the per-message overhead.
    const maxTokens = room - counter.countMessage({ role: 'user', content: '' });
    const found = await relevantMemories(scope, messageText(newest), {
      maxTokens,
      ...(abortSignal ? { abortSignal } : {}),
    });
    if (!found) return { messages, tokens, injected: 0 };
    const injected = placeMemoryInjection(messages, found.text);
    const injectedTokens = counter.countMessages(injected);
    if (injectedTokens > callBudget.budgetTokens) return { messages, tokens, injected: 0 };
    onEvent?.({
      type: 'memory-injection',
      scope,
      cards: found.cards,
      tokens: injectedTokens - tokens,
    });
    return { messages: injected, tokens: injectedTokens, injected: found.cards };
  }

  /**
   * Tokens of a request's tool definitions. Hosts send the same tools on every call (as new
   * objects): their JSON is the key, so counting them costs one `JSON.stringify` after the first.
   */
  function toolTokens(tools: readonly unknown[]): number {
    let key: string | undefined;
    try {
      key = JSON.stringify(tools);
    } catch {
      // countToolDefinitions names the definition JSON cannot hold.
      return countToolDefinitions(tools, counter);
    }
    const known = toolCounts.get(key);
    if (known !== undefined) return known;
    const tokens = countToolDefinitions(tools, counter);
    toolCounts.set(key, tokens);
    return tokens;
  }

  /**
   * The budget of one request: the manager's, less its tool definitions, what the caller adds
   * around the messages, and the requested output.
   */
  function budgetFor(
    tools: readonly unknown[] | undefined,
    maxOutputTokens: number | undefined,
    reservedTokens = 0,
  ) {
    if (!Number.isSafeInteger(reservedTokens) || reservedTokens < 0) {
      throw new InvalidArgumentError({
        message: `reservedTokens must be a non-negative integer, got ${String(reservedTokens)}`,
        argument: 'reservedTokens',
      });
    }
    if (
      (tools === undefined || tools.length === 0) &&
      maxOutputTokens === undefined &&
      reservedTokens === 0
    ) {
      return budget;
    }
    return resolveBudget({
      contextWindow,
      threshold,
      retainedRatio,
      reserve,
      maxMessages,
      fixedTokens: (tools === undefined ? 0 : toolTokens(tools)) + reservedTokens,
      ...(maxOutputTokens === undefined ? {} : { outputTokens: maxOutputTokens }),
    });
  }

  async function prepareLocked(
    key: string,
    original: readonly Message[],
    {
      scope = {},
      force = false,
      abortSignal,
      tools,
      maxOutputTokens,
      reservedTokens,
    }: PrepareOptions,
  ): Promise<PrepareResult> {
    const callBudget = budgetFor(tools, maxOutputTokens, reservedTokens);
    const state = session(key);

    // Malformed input fails here with a typed error, before anything is stored.
    state.checkShapes ??= createShapeCheck();
    const { fingerprints: originalFingerprints, needsTextRepair } = state.checkShapes(original);

    // The original history is recorded as the host gave it, before any repair.
    if (historyStore) {
      // From where this process's record ended: what other instances stored since is compared
      // and skipped by the positional append, never stored twice.
      const from = state.recorded ?? Math.min(await historyStore.count(scope), original.length);
      state.recorded =
        original.length > from ? await recordOriginal(historyStore, scope, original, from) : from;
    }

    // A dangling tool call, a late or orphan result makes every provider reject the prompt: the
    // repair documented in repairMessages runs on every call (linear, a no-op when all pairs up).
    let messages = original;
    let fingerprints = originalFingerprints;
    if (!repairInput) {
      // Throws the validator's error with the path of the first problem, if any.
      if (needsTextRepair || checkToolPairing(original).length > 0) validateMessages(original);
    } else {
      // Lone surrogates (rare) need the full repair; pairing alone is one linear pass.
      const repaired = needsTextRepair ? repairMessages(original) : repairToolPairing(original);
      if (repaired.repairs.length > 0) {
        messages = repaired.messages;
        fingerprints = messages.map(messageFingerprint);
        onEvent?.({
          type: 'input-repaired',
          scope,
          repairs: repaired.repairs.map((repair) => repair.kind),
        });
      }
    }
    const compactionKey = `${key}\u0000${callBudget.budgetTokens}:${callBudget.targetTokens}\u0000${hashFingerprints(fingerprints)}`;

    let entry = state.entry;
    if (entry && !matchesPrefix(entry, fingerprints)) entry = undefined;
    if (!entry && !state.entry) entry = await restoreEntry(scope, fingerprints, messages);
    let working = entry
      ? [...entry.output, ...messages.slice(entry.covered.length)]
      : [...messages];
    let tokens = counter.countMessages(working);
    const cycle = entry?.cycle ?? 0;
    if (tokens >= flushTokens) startFlush(scope, messages, state, cycle);

    let trigger = checkTrigger(tokens, working.length, callBudget, { manual: force });
    let output: Message[] = working;
    let report: CompactionReport | undefined;
    let cards: MemoryCardDraft[] = [];
    const pending = state.pending;
    if (trigger && !force && pending && matchesPrefix(pending.entry, fingerprints)) {
      // A background compaction prepared this moment: adopt it instead of summarizing now, so the
      // summarizer still runs once per threshold crossing and the turn waits for nothing.
      state.pending = undefined;
      entry = pending.entry;
      working = [...entry.output, ...messages.slice(entry.covered.length)];
      tokens = counter.countMessages(working);
      output = working;
      report = pending.report;
      cards = pending.cards;
      trigger = checkTrigger(tokens, working.length, callBudget, { manual: false });
    }
    if (trigger && trigger !== 'manual' && state.entry && historyStore) {
      // Another instance serving this session may have compacted it since this one did: adopt
      // its stored state instead of summarizing again.
      const stored = await restoreEntry(scope, fingerprints, messages);
      if (stored && stored.version > (entry?.version ?? 0)) {
        entry = stored;
        working = [...entry.output, ...messages.slice(entry.covered.length)];
        tokens = counter.countMessages(working);
        output = working;
        trigger = checkTrigger(tokens, working.length, callBudget, { manual: false });
      }
    }
    const known = trigger && trigger !== 'manual' ? compactions.get(compactionKey) : undefined;
    if (trigger && known && matchesPrefix(known.entry, fingerprints)) {
      // This scope's conversation was compacted at exactly this point before (hosts that share
      // one scope between conversations, or resend a request): reuse it, no summarizer call.
      state.entry = known.entry;
      state.pending = undefined;
      output = [...known.entry.output];
      tokens = counter.countMessages(output);
    } else if (trigger) {
      const { result, entry: next } = await runCompaction(
        scope,
        working,
        fingerprints,
        entry,
        trigger,
        abortSignal,
        state,
        callBudget,
      ).catch((error: unknown) => {
        throw explainBudget(error, callBudget);
      });
      state.entry = next;
      state.pending = undefined;
      compactions.set(compactionKey, { entry: next });
      output = result.messages;
      report = result.report;
      cards = result.cards;
      tokens = counter.countMessages(output);
    } else {
      if (entry) state.entry = entry;
      if (
        backgroundCompaction &&
        !state.background &&
        !state.pending &&
        tokens >= callBudget.triggerTokens - 0.1 * contextWindow
      ) {
        const snapshot = [...working];
        const covered = [...fingerprints];
        const run = runCompaction(
          scope,
          snapshot,
          covered,
          entry,
          'threshold',
          undefined,
          state,
          callBudget,
        )
          .then(({ result, entry: next }) => {
            state.pending = { entry: next, report: result.report, cards: result.cards };
          })
          .catch((error: unknown) => {
            onEvent?.({
              type: 'summarizer-fallback',
              scope,
              from: 'background-compaction',
              reason: errorText(error),
            });
          })
          .finally(() => {
            state.background = undefined;
          });
        state.background = run;
        track(run);
      }
    }

    const injected = await inject(scope, output, tokens, callBudget, abortSignal);
    return {
      messages: injected.messages,
      tokens: injected.tokens,
      budget: callBudget,
      compacted: report !== undefined,
      ...(report ? { report } : {}),
      cards,
      injected: injected.injected,
    };
  }

  return {
    budget,
    counter,
    offloadStore,
    historyStore,
    relevantMemories,
    async prepare(messages, prepareOptions = {}) {
      assertMessageArray(messages);
      const key = scopeKey(prepareOptions.scope ?? {});
      try {
        return await mutex.run(key, () => prepareLocked(key, messages, prepareOptions));
      } catch (error) {
        throw explainInvalidInput(error, messages);
      }
    },
    async clear(scope = {}) {
      const key = scopeKey(scope);
      await mutex.run(key, async () => {
        sessions.delete(key);
        await historyStore?.clear(scope);
      });
    },
    async idle() {
      while (background.size > 0) await Promise.allSettled([...background]);
    },
  };
}

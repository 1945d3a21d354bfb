import { resolveContextWindow } from '../budget/index.js';
import type { Message } from '../contracts/index.js';
import { InvalidArgumentError } from '../errors/index.js';
import { createInMemoryOffloadStore } from '../offload/index.js';
import { scopeKey } from '../storage/index.js';
import {
  createExtractiveSummarizer,
  createModelSummarizer,
  withCircuitBreaker,
  withFallback,
} from '../summarize/index.js';
import { createTokenCounter } from '../tokens/index.js';
import { appendCallRecord, createCallRecord } from './call-record.js';
import { createShapeCheck } from './check-new-messages.js';
import { createCompactionScheduler } from './compaction-scheduler.js';
import type {
  ContextManager,
  ContextManagerOptions,
  PrepareOptions,
  PrepareResult,
} from './context-manager-types.js';
import { KeyedMutex } from './keyed-mutex.js';
import { createMemoryFlush } from './memory-flush.js';
import { createMemoryInjection } from './memory-injection.js';
import {
  assertMessageArray,
  createRequestBudget,
  explainInvalidInput,
  repairInput as repairHistory,
} from './request-preparation.js';
import { createSessionPersistence, createSessionStates } from './session-state.js';

/**
 * The stateful heart of ctxmem: counts, triggers, compacts, remembers the compaction of each
 * session's prefix (so a host that resends the whole history does O(new) work), records the
 * original history and each prepared call, flushes and injects memories. Adapters only convert
 * messages and call `prepare`. The parts, each in its own file: request preparation (budget,
 * repair), session state and persistence, compaction scheduling, memory injection and flush, and
 * the call record; this function wires them and runs one call through them in order.
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
    recordedCalls = 50,
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
  if (!Number.isSafeInteger(recordedCalls) || recordedCalls < 0) {
    throw new InvalidArgumentError({
      message: `recordedCalls must be a non-negative integer, got ${String(recordedCalls)}`,
      argument: 'recordedCalls',
    });
  }
  const contextWindow = resolvedWindow;
  const counter = options.counter ?? createTokenCounter(model ? { model } : {});
  const { budget, budgetFor } = createRequestBudget(
    { contextWindow, threshold, retainedRatio, reserve, maxMessages },
    counter,
  );
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
  const mutex = new KeyedMutex();
  const background = new Set<Promise<unknown>>();
  const track = (promise: Promise<unknown>) => {
    background.add(promise);
    promise.finally(() => background.delete(promise));
  };

  const sessions = createSessionStates(cacheSize);
  const persistence = createSessionPersistence(historyStore);
  const memories = createMemoryInjection({ memory, counter, ...(onEvent ? { onEvent } : {}) });
  const flushes = createMemoryFlush({
    ...(flush ? { flush } : {}),
    contextWindow,
    triggerTokens: budget.triggerTokens,
    counter,
    memories,
    track,
    ...(onEvent ? { onEvent } : {}),
  });
  const scheduler = createCompactionScheduler({
    counter,
    summarizer,
    extractive,
    leases: options.leases,
    offloadStore,
    history,
    settings,
    repairInput,
    contextWindow,
    backgroundCompaction,
    cacheSize,
    persistence,
    storeCards: memories.storeCards,
    track,
    onEvent,
  });

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
    const request = budgetFor(tools, maxOutputTokens, reservedTokens);
    const state = sessions.get(key);
    // Malformed input fails here with a typed error, before anything is stored.
    state.checkShapes ??= createShapeCheck();
    const shapes = state.checkShapes(original);
    // The original history is recorded as the host gave it, before any repair.
    await persistence.recordOriginal(scope, state, original);
    const repaired = repairHistory(original, shapes.fingerprints, shapes.needsTextRepair, {
      repairInput,
      scope,
      ...(onEvent ? { onEvent } : {}),
    });
    const input = { scope, key, state, ...repaired, budget: request.budget };

    const resumed = await scheduler.resume(input);
    if (resumed.tokens >= flushes.thresholdTokens) {
      flushes.start(scope, repaired.messages, state, resumed.cycle);
    }
    const fitted = await scheduler.fitPrompt(input, resumed, { force, abortSignal });
    const injected = await memories
      .inject(scope, fitted.output, fitted.tokens, request.budget.budgetTokens, abortSignal)
      .catch(async (error: unknown) => {
        // The compaction is not written: let another instance take the lease now, not at expiry.
        await fitted.unwritten?.lease?.release().catch(() => {});
        throw error;
      });
    if (recordedCalls > 0) {
      const call = createCallRecord({
        historyMessages: original.length,
        tokensBefore: resumed.tokens,
        messages: injected.messages,
        tokens: injected.tokens,
        budget: request.budget,
        toolTokens: request.toolTokens,
        reservedTokens: request.reservedTokens,
        ...(fitted.source
          ? {
              compaction: {
                source: fitted.source,
                summarizer:
                  fitted.source === 'offline-while-leased' ? extractive.name : summarizer.name,
                ...(fitted.report && fitted.source !== 'stored' ? { report: fitted.report } : {}),
              },
            }
          : {}),
        memories: injected.cards,
        repairs: repaired.repairs,
        counter,
      });
      state.calls = appendCallRecord(state.calls, call, recordedCalls);
    }
    if (fitted.unwritten) await scheduler.commit(scope, state, fitted.unwritten);
    fitted.startBackground?.();
    return {
      messages: injected.messages,
      tokens: injected.tokens,
      budget: request.budget,
      compacted: fitted.report !== undefined,
      ...(fitted.report ? { report: fitted.report } : {}),
      cards: fitted.cards,
      injected: injected.cards.length,
    };
  }

  return {
    budget,
    counter,
    offloadStore,
    historyStore,
    relevantMemories: memories.relevantMemories,
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

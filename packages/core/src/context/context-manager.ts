import { resolveContextWindow } from '../budget/index.js';
import type { CallOverflow, CallRecord, Message, Scope } from '../contracts/index.js';
import {
  BudgetExceededError,
  ContextOverflowError,
  InvalidArgumentError,
} from '../errors/index.js';
import { createInMemoryOffloadStore } from '../offload/index.js';
import {
  type ContextOverflow,
  createCountCalibration,
  defaultCountRatio,
  detectContextOverflow,
  type OverflowRetryPlan,
  planOverflowRetry,
} from '../provider/index.js';
import { scopeKey } from '../storage/index.js';
import {
  createExtractiveSummarizer,
  createModelSummarizer,
  withCircuitBreaker,
  withFallback,
} from '../summarize/index.js';
import {
  createTelemetry,
  prepareAttributes,
  traceManagerOptions,
  traceSummarizer,
} from '../telemetry/index.js';
import { createTokenCounter } from '../tokens/index.js';
import { requireOptions } from '../validation/index.js';
import { appendCallRecord, createCallRecord, replaceCallRecord } from './call-record.js';
import { createShapeCheck } from './check-new-messages.js';
import { createCompactionScheduler } from './compaction-scheduler.js';
import type {
  ContextManager,
  ContextManagerOptions,
  ModelCallRequest,
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
export function createContextManager(given: ContextManagerOptions = {}): ContextManager {
  requireOptions(given, 'createContextManager');
  // With telemetry on, the stores, the search and the model calls are wrapped in spans here.
  const telemetry = createTelemetry(given.telemetry);
  const options = telemetry ? traceManagerOptions(telemetry, given) : given;
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
    calibration: calibrationOptions = {},
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
  const calibration = createCountCalibration({
    key: `${model ?? ''}|${counter.name}`,
    ...(calibrationOptions === false
      ? { prior: 1, learn: false }
      : { prior: defaultCountRatio(model), ...calibrationOptions }),
  });
  const { budgetOf, budgetFor } = createRequestBudget(
    { contextWindow, threshold, retainedRatio, reserve, maxMessages },
    counter,
  );
  // The flush threshold is set once, from the budget at the prior ratio.
  const initialBudget = budgetOf({ countRatio: calibration.ratio() });
  const extractive = createExtractiveSummarizer({ counter });
  const primary =
    options.summarizer ??
    (options.modelSummarizer
      ? createModelSummarizer({ ...options.modelSummarizer, counter })
      : undefined);
  const breaker = options.summarizerCircuitBreaker ?? {};
  // Fail closed: whatever summarizer the user gives, the extractive one is the last fallback.
  const chain = primary
    ? withFallback(breaker === false ? primary : withCircuitBreaker(primary, breaker), extractive)
    : extractive;
  const summarizer = telemetry ? traceSummarizer(telemetry, chain) : chain;
  const offloadStore = options.offloadStore ?? createInMemoryOffloadStore();
  const mutex = new KeyedMutex();
  const background = new Set<Promise<unknown>>();
  const track = (promise: Promise<unknown>) => {
    background.add(promise);
    promise.finally(() => background.delete(promise));
  };

  const sessions = createSessionStates(cacheSize);
  const persistence = createSessionPersistence(historyStore, {
    snapshot: calibration.snapshot,
    adopt: calibration.adopt,
  });
  /** What the manager knows of each result it prepared: its session, record and budget. */
  const prepared = new WeakMap<
    PrepareResult,
    { key: string; scope: Scope; record: CallRecord | undefined }
  >();
  const memories = createMemoryInjection({ memory, counter, ...(onEvent ? { onEvent } : {}) });
  const flushes = createMemoryFlush({
    ...(flush ? { flush } : {}),
    contextWindow,
    triggerTokens: initialBudget.triggerTokens,
    counter,
    memories,
    track,
    ...(onEvent ? { onEvent } : {}),
    ...(telemetry ? { telemetry } : {}),
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
    ...(telemetry ? { telemetry } : {}),
  });

  /** A retry after a "too long" rejection: its budget and what the record says of the rejection. */
  interface Retry {
    plan: OverflowRetryPlan;
    overflow: CallOverflow;
  }

  /**
   * The budget of a request: at the calibrated ratio, or for a retry at the plan's ratio and
   * window, tightened until its messages get no more than the plan allows.
   */
  function requestBudget(
    tools: readonly unknown[] | undefined,
    maxOutputTokens: number | undefined,
    reservedTokens: number | undefined,
    retry: Retry | undefined,
  ) {
    if (!retry) {
      return budgetFor(tools, maxOutputTokens, reservedTokens, {
        countRatio: calibration.ratio(),
      });
    }
    const { ratio, contextWindow: window, maxMessageTokens } = retry.plan;
    const first = budgetFor(tools, maxOutputTokens, reservedTokens, {
      countRatio: ratio,
      contextWindow: window,
    });
    if (first.budget.budgetTokens <= maxMessageTokens) return first;
    // The ratio that leaves the messages `maxMessageTokens`: (window − reserve) / ratio − fixed.
    const { reserveTokens, fixedTokens } = first.budget;
    const needed = (window - reserveTokens) / (maxMessageTokens + fixedTokens + 1);
    return budgetFor(tools, maxOutputTokens, reservedTokens, {
      countRatio: Math.max(ratio, needed),
      contextWindow: window,
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
    retry?: Retry,
  ): Promise<PrepareResult> {
    // Computed first so that bad tools or limits fail before anything is stored.
    let request = requestBudget(tools, maxOutputTokens, reservedTokens, retry);
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
    const resumed = await scheduler.resume({
      scope,
      key,
      state,
      ...repaired,
      limitTokens: request.budget.budgetTokens,
    });
    // A session's first call may have adopted a stored calibration (a restarted process).
    if (!retry && request.budget.countRatio !== calibration.ratio()) {
      request = requestBudget(tools, maxOutputTokens, reservedTokens, retry);
      // Counted within the budget it now has, so the trigger is still the exact count's.
      resumed.tokens = scheduler.tokensWithin(resumed.working, request.budget.budgetTokens);
    }
    const input = { scope, key, state, ...repaired, budget: request.budget };
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
    let record: CallRecord | undefined;
    if (recordedCalls > 0) {
      record = createCallRecord({
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
        calibration: {
          ratio: request.budget.countRatio,
          observations: calibration.observations(),
        },
        ...(retry ? { overflow: retry.overflow } : {}),
        counter,
      });
      state.calls = appendCallRecord(state.calls, record, recordedCalls);
    }
    if (fitted.unwritten) await scheduler.commit(scope, state, fitted.unwritten);
    fitted.startBackground?.();
    const result: PrepareResult = {
      messages: injected.messages,
      tokens: injected.tokens,
      requestTokens: injected.tokens + request.budget.fixedTokens,
      budget: request.budget,
      compacted: fitted.report !== undefined,
      ...(fitted.report ? { report: fitted.report } : {}),
      cards: fitted.cards,
      injected: injected.cards.length,
    };
    prepared.set(result, { key, scope, record });
    return result;
  }

  async function prepareUntraced(
    messages: readonly Message[],
    prepareOptions: PrepareOptions,
    retry?: Retry,
  ): Promise<PrepareResult> {
    assertMessageArray(messages);
    const key = scopeKey(prepareOptions.scope ?? {});
    try {
      return await mutex.run(key, () => prepareLocked(key, messages, prepareOptions, retry));
    } catch (error) {
      throw explainInvalidInput(error, messages);
    }
  }

  /** `prepareUntraced` in a `ctxmem.prepare` span, when telemetry is on. */
  const prepareCall = !telemetry
    ? prepareUntraced
    : (messages: readonly Message[], prepareOptions: PrepareOptions, retry?: Retry) =>
        telemetry.span(
          'ctxmem.prepare',
          {
            ...(model ? { 'ctxmem.model': model } : {}),
            ...telemetry.scopeAttributes(prepareOptions?.scope ?? {}),
          },
          async (span) => {
            const result = await prepareUntraced(messages, prepareOptions, retry);
            // A span no SDK records (sampled out, or no SDK) is not worth the attributes.
            if (span.isRecording()) {
              span.setAttributes(prepareAttributes(result, prepared.get(result)?.record));
            }
            return result;
          },
        );

  /** Replaces a prepared call's record in its session (if the session and record are still there). */
  function updateRecord(result: PrepareResult, update: (record: CallRecord) => CallRecord): void {
    const known = prepared.get(result);
    if (!known?.record) return;
    const state = sessions.peek(known.key);
    if (!state) return;
    const updated = update(known.record);
    state.calls = replaceCallRecord(state.calls, known.record, updated);
    known.record = updated;
  }

  function observeUsage(result: PrepareResult, inputTokens: number | undefined): void {
    if (!prepared.has(result) || inputTokens === undefined) return;
    calibration.observe(result.requestTokens, inputTokens);
    updateRecord(result, (record) => ({
      ...record,
      calibration: {
        ...(record.calibration ?? { ratio: result.budget.countRatio, observations: 0 }),
        providerTokens: inputTokens,
      },
    }));
  }

  /** Feeds the provider's count in an overflow error to the calibration. */
  function observeOverflow(result: PrepareResult, overflow: ContextOverflow): void {
    if (overflow.providerTokens !== undefined) {
      calibration.observe(result.requestTokens, overflow.providerTokens);
    }
  }

  function overflowCounts(result: PrepareResult, overflow: ContextOverflow) {
    return {
      countedTokens: result.requestTokens,
      ...(overflow.providerTokens === undefined ? {} : { providerTokens: overflow.providerTokens }),
      ...(overflow.limitTokens === undefined ? {} : { limitTokens: overflow.limitTokens }),
    };
  }

  async function callModel<Result>({
    messages,
    options: prepareOptions = {},
    send,
    usage,
    prepared: given,
  }: ModelCallRequest<Result>): Promise<Result> {
    const scope = prepareOptions.scope ?? {};
    const first = given ?? (await prepareCall(messages, prepareOptions));
    const attempt = async (request: PrepareResult) => {
      const result = await send(request);
      if (usage) observeUsage(request, usage(result)?.inputTokens);
      return result;
    };
    try {
      return await attempt(first);
    } catch (error) {
      const overflow = detectContextOverflow(error);
      if (!overflow || prepareOptions.abortSignal?.aborted) throw error;
      observeOverflow(first, overflow);
      const plan = planOverflowRetry(overflow, {
        requestTokens: first.requestTokens,
        tokens: first.tokens,
        ratio: first.budget.countRatio,
        contextWindow: first.budget.contextWindow,
      });
      const counts = overflowCounts(first, overflow);
      onEvent?.({
        type: 'context-overflow',
        scope,
        outcome: 'retrying',
        ...counts,
        ratio: plan.ratio,
      });
      const second = await prepareCall(messages, prepareOptions, {
        plan,
        overflow: { ...counts, outcome: 'retried' },
      }).catch((error: unknown) => {
        if (!BudgetExceededError.isInstance(error)) throw error;
        // At the provider's count not even the system messages and the newest user message
        // fit: nothing can be sent again.
        onEvent?.({
          type: 'context-overflow',
          scope,
          outcome: 'cannot-fit',
          ...counts,
          ratio: plan.ratio,
        });
        throw new ContextOverflowError({
          message: `The provider rejected the request as too long (ctxmem counted ${first.requestTokens} tokens${overflow.providerTokens === undefined ? '' : `, the provider ${overflow.providerTokens}`}), and no smaller request fits: ${error.message}`,
          ...counts,
          ...(overflow.outputTokens === undefined ? {} : { outputTokens: overflow.outputTokens }),
          cause: error,
        });
      });
      try {
        return await attempt(second);
      } catch (secondError) {
        const again = detectContextOverflow(secondError);
        if (!again) throw secondError;
        observeOverflow(second, again);
        const secondCounts = overflowCounts(second, again);
        updateRecord(second, (record) => ({
          ...record,
          overflow: { ...record.overflow!, outcome: 'rejected-again' },
        }));
        onEvent?.({
          type: 'context-overflow',
          scope,
          outcome: 'rejected-again',
          ...secondCounts,
          ratio: second.budget.countRatio,
        });
        throw new ContextOverflowError({
          message: `The provider rejected the request as too long twice: ctxmem counted ${first.requestTokens} and then ${second.requestTokens} tokens${again.providerTokens === undefined ? '' : `, the provider ${overflow.providerTokens ?? 'an unknown number of'} and then ${again.providerTokens}`}${again.limitTokens === undefined ? '' : ` against its limit of ${again.limitTokens}`}. The provider said: ${again.message}`,
          ...secondCounts,
          ...(again.outputTokens === undefined ? {} : { outputTokens: again.outputTokens }),
          attempts: [
            {
              ...counts,
              ...(overflow.outputTokens === undefined
                ? {}
                : { outputTokens: overflow.outputTokens }),
            },
            {
              ...secondCounts,
              ...(again.outputTokens === undefined ? {} : { outputTokens: again.outputTokens }),
            },
          ],
          cause: secondError,
        });
      }
    }
  }

  return {
    get budget() {
      return budgetOf({ countRatio: calibration.ratio() });
    },
    counter,
    offloadStore,
    historyStore,
    relevantMemories: memories.relevantMemories,
    prepare: (messages, prepareOptions = {}) => prepareCall(messages, prepareOptions),
    callModel,
    observeUsage(result, usage) {
      observeUsage(result, usage?.inputTokens);
    },
    calibration: () => ({ ratio: calibration.ratio(), observations: calibration.observations() }),
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

import type {
  CompactionReport,
  CompactionTrigger,
  CompressionContext,
  CompressionSettings,
  CompressionState,
  CompressionStrategy,
  CtxmemEvent,
  EventListener,
  MemoryCardDraft,
  Message,
  OffloadStore,
  Scope,
  StrategyName,
  StrategyReport,
  StructuredSummary,
  Summarizer,
  TokenCounter,
} from '../contracts/index.js';
import { InvalidArgumentError } from '../errors/index.js';
import { repairMessages, validateMessages } from '../messages/validate-messages.js';
import { requireOptions } from '../validation/index.js';
import { withMessageCache } from './counting.js';
import { fitToBudget } from './fit-to-budget.js';
import {
  compressionPipeline,
  forcedStrategyNames,
  HISTORY_MODES,
  type HistoryMode,
} from './pipeline.js';
import { resolveSettingsForTarget } from './settings.js';
import { referencedOffloadIds, stageOffloads } from './staged-offloads.js';

export interface CompactOptions {
  /** The hard limit: the result never has more tokens than this (counted with `counter`). */
  budgetTokens: number;
  /** Strategies compress until the prompt is at or under this many tokens. @default budgetTokens */
  targetTokens?: number;
  counter: TokenCounter;
  summarizer: Summarizer;
  /** Where offloaded originals go (reloadable with `reload_context`). */
  offloadStore: OffloadStore;
  /** Whose data this is; offload records are written in this scope. @default {} */
  scope?: Scope;
  /** How history is kept: the progressive pipeline, the last rounds only, or the summary only. @default 'compressed' */
  history?: HistoryMode;
  /** Strategy settings. @default DEFAULT_COMPRESSION_SETTINGS */
  settings?: Partial<CompressionSettings>;
  /** The rolling summary of the previous compaction (when the messages hold its rendered form). @default undefined */
  previousSummary?: StructuredSummary;
  /** Replaces the pipeline of `history`. @default compressionPipeline(history) */
  strategies?: readonly CompressionStrategy[];
  /**
   * Compact even when already under target (a manual trigger). The history-shaping strategies then
   * run regardless of the target. The `manual` and `message-count` triggers always force.
   * @default false
   */
  force?: boolean;
  /** Why the compaction runs, for the report. @default 'manual' when forced, 'budget' when over budget, else 'threshold' */
  trigger?: CompactionTrigger;
  abortSignal?: AbortSignal;
  /** Receives one `strategy` event per applied strategy and one `compaction` event at the end. @default undefined */
  onEvent?: EventListener;
  /**
   * What to do with tool calls and results that do not pair up (missing, late or orphan results,
   * repeated ids) and lone surrogates: repair them as `repairMessages` documents and emit an
   * `input-repaired` event, or reject the input with `InvalidMessageError`. Malformed messages
   * (unknown part types, NaN, cycles, wrong types) are always rejected.
   * @default true
   */
  repairInput?: boolean;
}

export interface CompactResult {
  /** The compacted prompt: within `budgetTokens`, pairs intact, newest user message verbatim. */
  messages: Message[];
  /** The full rolling summary (its message may render a trimmed form when the budget is tight). */
  summary?: StructuredSummary;
  report: CompactionReport;
  /** Memory cards the summarizer extracted. */
  cards: MemoryCardDraft[];
}

/** `report` with only the offload ids that were written (see `stageOffloads`). */
function writtenOnly(report: StrategyReport, written: (id: string) => boolean): StrategyReport {
  if (!report.offloadIds) return report;
  const { offloadIds, ...rest } = report;
  const kept = offloadIds.filter(written);
  return kept.length > 0 ? { ...rest, offloadIds: kept } : rest;
}

function requirePositiveInteger(value: unknown, argument: string): asserts value is number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) {
    throw new InvalidArgumentError({
      message: `${argument} must be a positive integer, got ${String(value)}`,
      argument,
    });
  }
}

function requirePresent(value: unknown, argument: string, method: string): void {
  const target = value as Record<string, unknown> | undefined;
  if (!target || typeof target[method] !== 'function') {
    throw new InvalidArgumentError({ message: `${argument} is required`, argument });
  }
}

/**
 * Makes `messages` fit the budget with the progressive pipeline (tool runs → offload
 * keeping the last N → offload all → summarize rounds → compress the current round, or a
 * history mode), then, as a last resort, the budget guard. Guarantees: the result is at most
 * `budgetTokens` or a `BudgetExceededError` is thrown (only when the system messages and the newest
 * user message alone are over budget); system messages are kept verbatim; the newest user message
 * is byte-identical; every tool call keeps its result and vice versa; the summary sits in the
 * leading system block. Already at or under target and not forced → the same messages back.
 * The input is never modified.
 */
export async function compact(
  messages: readonly Message[],
  options: CompactOptions,
): Promise<CompactResult> {
  requireOptions(options, 'compact');
  const {
    budgetTokens,
    targetTokens = budgetTokens,
    counter,
    summarizer,
    offloadStore,
    scope = {},
    history = 'compressed',
    onEvent,
    repairInput = true,
  } = options;
  requirePositiveInteger(budgetTokens, 'budgetTokens');
  requirePositiveInteger(targetTokens, 'targetTokens');
  if (targetTokens > budgetTokens) {
    throw new InvalidArgumentError({
      message: `targetTokens (${targetTokens}) must not exceed budgetTokens (${budgetTokens})`,
      argument: 'targetTokens',
    });
  }
  requirePresent(counter, 'counter', 'countMessages');
  requirePresent(summarizer, 'summarizer', 'summarize');
  requirePresent(offloadStore, 'offloadStore', 'put');
  if (!HISTORY_MODES.includes(history)) {
    throw new InvalidArgumentError({
      message: `history must be one of ${HISTORY_MODES.join(', ')}, got ${String(history)}`,
      argument: 'history',
    });
  }
  if (!Array.isArray(messages)) {
    throw new InvalidArgumentError({ message: 'messages must be an array', argument: 'messages' });
  }
  // The same edge policy as the context manager: repair what repairMessages documents, reject
  // the rest with the path of the problem. Never compact (or store) what a provider would refuse.
  const admitted = repairInput
    ? repairMessages(messages)
    : { messages: validateMessages(messages), repairs: [] };
  if (admitted.repairs.length > 0) {
    try {
      onEvent?.({
        type: 'input-repaired',
        scope,
        repairs: admitted.repairs.map((repair) => repair.kind),
      });
    } catch {
      // A failing listener must not fail the compaction.
    }
  }
  return compactAdmitted(admitted.messages, { ...options, scope, history, targetTokens });
}

async function compactAdmitted(
  messages: readonly Message[],
  options: CompactOptions & { scope: Scope; history: HistoryMode; targetTokens: number },
): Promise<CompactResult> {
  const {
    budgetTokens,
    targetTokens,
    counter,
    summarizer,
    offloadStore,
    scope,
    history,
    settings,
    previousSummary,
    strategies,
    trigger,
    abortSignal,
    onEvent,
  } = options;
  const resolvedSettings = resolveSettingsForTarget(settings, targetTokens);
  // Under target a message-count or manual trigger still has work to do: there is no token
  // excess to measure progress against, so the history-shaping strategies run regardless.
  const forced = options.force === true || trigger === 'manual' || trigger === 'message-count';
  const started = performance.now();
  const cached = withMessageCache(counter, budgetTokens);
  const tokensBefore = cached.countMessages(messages);
  const tokensBeforeIsLowerBound = cached.countedByFloor;
  const reportTrigger: CompactionTrigger =
    trigger ?? (forced ? 'manual' : tokensBefore > budgetTokens ? 'budget' : 'threshold');

  const finish = (
    output: readonly Message[],
    summary: StructuredSummary | undefined,
    reports: StrategyReport[],
  ): CompactResult => {
    const report: CompactionReport = {
      tokensBefore,
      ...(tokensBeforeIsLowerBound ? { tokensBeforeIsLowerBound: true as const } : {}),
      tokensAfter: counter.countMessages(output),
      budgetTokens,
      targetTokens,
      strategies: reports,
      summarizerCalls: reports.reduce((sum, item) => sum + item.summarizerCalls, 0),
      durationMs: performance.now() - started,
      trigger: reportTrigger,
    };
    return {
      messages: [...output],
      ...(summary ? { summary } : {}),
      report,
      cards: reports.flatMap((item) => item.cards ?? []),
    };
  };

  if (!forced && tokensBefore <= targetTokens) return finish(messages, previousSummary, []);
  abortSignal?.throwIfAborted();

  // Events never carry message content (contracts/events.ts): extracted memory cards are user
  // text, so they stay in the result and are left out of what listeners see.
  const withoutCards = ({ cards: _cards, ...report }: StrategyReport): StrategyReport => report;
  const emit = (event: CtxmemEvent) => {
    try {
      onEvent?.(event);
    } catch {
      // A failing listener must not fail the compaction.
    }
  };
  emit({
    type: 'compaction-start',
    scope,
    trigger: reportTrigger,
    tokensBefore,
    budgetTokens,
    targetTokens,
  });
  // Offloads are written once the result is known, and only those it refers to.
  const offloads = stageOffloads(offloadStore, scope);
  const context: CompressionContext = {
    counter: cached,
    targetTokens,
    budgetTokens,
    summarizer,
    offloadStore: offloads.store,
    scope,
    settings: resolvedSettings,
    ...(abortSignal ? { abortSignal } : {}),
  };
  const pipeline = strategies ?? compressionPipeline(history);
  const forcedNames: ReadonlySet<StrategyName> = !forced
    ? new Set()
    : strategies
      ? new Set(
          strategies.map((strategy) => strategy.name).filter((name) => name !== 'current-round'),
        )
      : forcedStrategyNames(history);

  const reports: StrategyReport[] = [];
  const record = (report: StrategyReport) => {
    reports.push(report);
    if (report.applied) emit({ type: 'strategy', scope, report: withoutCards(report) });
    if (report.fallback) {
      emit({
        type: 'summarizer-fallback',
        scope,
        from: report.fallback.from,
        reason: report.fallback.reason,
        ...(report.fallback.kind ? { kind: report.fallback.kind } : {}),
      });
    }
  };

  let state: CompressionState = {
    messages,
    ...(previousSummary ? { summary: previousSummary } : {}),
  };
  for (const strategy of pipeline) {
    abortSignal?.throwIfAborted();
    const isForced = forcedNames.has(strategy.name);
    if (!isForced && cached.countMessages(state.messages) <= targetTokens) continue;
    const result = await strategy.apply(state, {
      ...context,
      // A forced strategy treats every token as too many; it stops at its own limits
      // (`minMessagesToKeep`, `recentRounds`, thresholds) instead.
      targetTokens: isForced ? 0 : targetTokens,
    });
    state = result.state;
    record(result.report);
  }

  let guarded = await fitToBudget(state, context);
  guarded.reports.forEach(record);
  // The guard counted with the per-message cache; a counter whose whole-prompt count differs from
  // the sum of its message counts (a contract violation) gets the difference taken off the budget.
  const actual = counter.countMessages(guarded.state.messages);
  if (actual > budgetTokens) {
    const slack = actual - cached.countMessages(guarded.state.messages);
    guarded = await fitToBudget(guarded.state, { ...context, budgetTokens: budgetTokens - slack });
    guarded.reports.forEach(record);
  }
  const written = await offloads.commit(
    referencedOffloadIds(guarded.state.messages, guarded.state.summary),
  );
  const result = finish(
    guarded.state.messages,
    guarded.state.summary,
    reports.map((report) => writtenOnly(report, written)),
  );
  emit({
    type: 'compaction',
    scope,
    report: { ...result.report, strategies: result.report.strategies.map(withoutCards) },
  });
  return result;
}

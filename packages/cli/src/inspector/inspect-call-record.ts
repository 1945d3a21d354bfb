import type { CallCompactionSource, CallRecord, CallStrategy } from '@ctxmem/core';
import type {
  CallOrigin,
  InspectedCall,
  InspectedCompaction,
  InspectedFallback,
} from './inspection.js';

/** What the page adds to a call record: what the record does not hold, or holds by reference. */
export type CallDetails = Pick<
  InspectedCall,
  'summary' | 'summaryDiff' | 'summaryChanged' | 'memoryCards' | 'messages'
> & {
  /**
   * The failures' reasons in words, in the order of the record's fallbacks: known live (a replay
   * sees the `summarizer-fallback` events), never stored.
   * @default none
   */
  fallbackReasons?: readonly string[];
};

/** The fallback of the budget guard, which cuts a prompt to fit when no strategy got it there. */
const BUDGET_GUARD = 'budget-guard';

/** Strategies that call the summarizer when they apply. */
const SUMMARIZING: ReadonlySet<string> = new Set([
  'summarize-rounds',
  'recent-only',
  'summary-only',
]);

const COMPACTION_SOURCES: Readonly<Record<CallCompactionSource, string>> = {
  compacted: 'compacted',
  background: 'adopted from the background',
  stored: 'adopted from another instance',
  reused: 'reused',
  'offline-while-leased': 'compacted offline (another instance held the compaction lease)',
};

/**
 * One call of the timeline from its record, whether the context manager stored it, the inspector's
 * replay made it, or it was rebuilt from the store: one description for all three, so the page
 * shows them alike and says which it is.
 */
export function inspectCallRecord(
  record: CallRecord,
  number: number,
  origin: CallOrigin,
  { fallbackReasons = [], ...details }: CallDetails,
): InspectedCall {
  const { composition, compaction } = record;
  const fallbacks = (compaction?.strategies ?? []).flatMap((strategy) =>
    strategy.fallback ? [strategy.fallback] : [],
  );
  const inspectedFallbacks = fallbacks.map((fallback, index) =>
    inspectFallback(fallback, fallbackReasons[index]),
  );
  return {
    number,
    origin,
    at: record.at,
    historyMessages: record.historyMessages,
    tokens: record.tokens,
    contextWindow: record.budget.contextWindow,
    budgetTokens: record.budget.budgetTokens,
    triggerTokens: record.budget.triggerTokens,
    composition: {
      system: composition.system,
      summary: composition.summary,
      memories: composition.memories,
      history: composition.history,
      compressed: composition.compressed,
      toolResults: composition.toolResults,
      // The page draws what the caller reserves around the messages with the tool definitions:
      // both are fixed parts of the request outside the messages.
      toolDefinitions: composition.toolDefinitions + composition.reserved,
      outputReserve: composition.outputReserve,
    },
    ...(record.calibration ? { calibration: { ...record.calibration } } : {}),
    ...(record.overflow ? { overflow: { ...record.overflow } } : {}),
    ...(compaction
      ? {
          compaction: inspectCompaction(record, inspectedFallbacks),
          ...(ranSummarizer(compaction.strategies, compaction.summarizerCalls)
            ? { summarizer: compaction.summarizer }
            : {}),
        }
      : {}),
    fallbacks: inspectedFallbacks.filter((fallback) => fallback.from !== BUDGET_GUARD),
    ...details,
  };
}

function inspectCompaction(
  record: CallRecord,
  fallbacks: readonly InspectedFallback[],
): InspectedCompaction {
  const compaction = record.compaction!;
  const source = COMPACTION_SOURCES[compaction.source] ?? compaction.source;
  let fallbackIndex = 0;
  return {
    trigger:
      compaction.trigger === undefined
        ? source
        : compaction.source === 'compacted'
          ? compaction.trigger
          : `${compaction.trigger}, ${source}`,
    tokensBefore: record.tokensBefore,
    tokensAfter: record.tokens,
    budgetTokens: record.budget.budgetTokens,
    targetTokens: record.budget.targetTokens,
    summarizerCalls: compaction.summarizerCalls,
    strategies: compaction.strategies.map(({ fallback, ...strategy }) => ({
      ...strategy,
      ...(fallback ? { fallback: fallbacks[fallbackIndex++]! } : {}),
    })),
  };
}

function ranSummarizer(strategies: readonly CallStrategy[], summarizerCalls: number): boolean {
  return (
    summarizerCalls > 0 ||
    strategies.some(
      (strategy) =>
        strategy.applied &&
        SUMMARIZING.has(strategy.strategy) &&
        strategy.fallback?.from !== BUDGET_GUARD,
    )
  );
}

/** A recorded fallback, described: its kind and error class, and its words when known live. */
function inspectFallback(
  { from, kind, errorClass }: NonNullable<CallStrategy['fallback']>,
  reason: string | undefined,
): InspectedFallback {
  const described =
    kind !== undefined
      ? `${kind}${errorClass ? ` (${errorClass})` : ''}`
      : from === BUDGET_GUARD
        ? 'cut the prompt to fit the budget'
        : 'reason not recorded';
  return {
    from,
    ...(kind !== undefined ? { kind } : {}),
    ...(errorClass !== undefined ? { errorClass } : {}),
    description: reason === undefined ? described : `${described}: ${reason}`,
  };
}

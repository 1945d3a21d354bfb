import type { Attributes, Span } from '@opentelemetry/api';
import type { PrepareResult } from '../context/context-manager-types.js';
import type { CallComposition, CallRecord, CompactionReport } from '../contracts/index.js';

/** The window parts of a call record, as `ctxmem.window.*` attribute names. */
const WINDOW_PARTS: ReadonlyArray<[keyof CallComposition, string]> = [
  ['system', 'ctxmem.window.system'],
  ['summary', 'ctxmem.window.summary'],
  ['memories', 'ctxmem.window.memories'],
  ['history', 'ctxmem.window.history'],
  ['compressed', 'ctxmem.window.compressed'],
  ['toolResults', 'ctxmem.window.tool_results'],
  ['toolDefinitions', 'ctxmem.window.tool_definitions'],
  ['reserved', 'ctxmem.window.reserved'],
  ['outputReserve', 'ctxmem.window.output_reserve'],
];

/**
 * What a `ctxmem.prepare` span says of its call: tokens before and after, the budget, the count
 * ratio, the compaction's source, the memories injected and, from the call record (kept unless
 * `recordedCalls` is 0), the window by part, the repairs and an overflow retry. Counts only.
 */
export function prepareAttributes(
  result: PrepareResult,
  record: CallRecord | undefined,
): Attributes {
  const { budget } = result;
  const attributes: Attributes = {
    'ctxmem.tokens.after': result.tokens,
    'ctxmem.request.tokens': result.requestTokens,
    'ctxmem.budget.context_window': budget.contextWindow,
    'ctxmem.budget.tokens': budget.budgetTokens,
    'ctxmem.budget.trigger_tokens': budget.triggerTokens,
    'ctxmem.budget.target_tokens': budget.targetTokens,
    'ctxmem.count_ratio': budget.countRatio,
    'ctxmem.compacted': result.compacted,
    'ctxmem.memories.injected': result.injected,
    'ctxmem.memories.extracted': result.cards.length,
  };
  if (!record) return attributes;
  attributes['ctxmem.tokens.before'] = record.tokensBefore;
  attributes['ctxmem.history.messages'] = record.historyMessages;
  attributes['ctxmem.offloads'] = record.offloadIds.length;
  for (const [part, name] of WINDOW_PARTS) attributes[name] = record.composition[part];
  if (record.compaction) {
    attributes['ctxmem.compaction.source'] = record.compaction.source;
    attributes['ctxmem.summarizer.name'] = record.compaction.summarizer;
    attributes['ctxmem.strategies'] = record.compaction.strategies
      .filter((strategy) => strategy.applied)
      .map((strategy) => strategy.strategy);
  }
  if (record.calibration) {
    attributes['ctxmem.count_ratio.observations'] = record.calibration.observations;
  }
  if (record.repairs && record.repairs.length > 0) attributes['ctxmem.repairs'] = record.repairs;
  if (record.overflow) {
    attributes['ctxmem.overflow.outcome'] = record.overflow.outcome;
    attributes['ctxmem.overflow.counted_tokens'] = record.overflow.countedTokens;
    if (record.overflow.providerTokens !== undefined) {
      attributes['ctxmem.overflow.provider_tokens'] = record.overflow.providerTokens;
    }
  }
  return attributes;
}

/**
 * What a `ctxmem.compaction` span says when the compaction is done: tokens before and after, the
 * strategies that applied, the summarizer's calls and, when one fell back, its failure's kind;
 * each applied strategy is an event with its own tokens before and after.
 */
export function recordCompaction(span: Span, report: CompactionReport): void {
  const applied = report.strategies.filter((strategy) => strategy.applied);
  const fallback = report.strategies.find((strategy) => strategy.fallback)?.fallback;
  span.setAttributes({
    'ctxmem.compaction.trigger': report.trigger,
    'ctxmem.tokens.before': report.tokensBefore,
    'ctxmem.tokens.after': report.tokensAfter,
    'ctxmem.budget.tokens': report.budgetTokens,
    'ctxmem.budget.target_tokens': report.targetTokens,
    'ctxmem.strategies': applied.map((strategy) => strategy.strategy),
    'ctxmem.summarizer.calls': report.summarizerCalls,
    ...(fallback ? { 'ctxmem.summarizer.fallback.from': fallback.from } : {}),
    ...(fallback?.kind ? { 'ctxmem.summarizer.fallback.kind': fallback.kind } : {}),
  });
  for (const strategy of applied) {
    span.addEvent('ctxmem.strategy', {
      'ctxmem.strategy': strategy.strategy,
      'ctxmem.tokens.before': strategy.tokensBefore,
      'ctxmem.tokens.after': strategy.tokensAfter,
      'ctxmem.messages.affected': strategy.messagesAffected,
      'ctxmem.summarizer.calls': strategy.summarizerCalls,
    });
  }
}

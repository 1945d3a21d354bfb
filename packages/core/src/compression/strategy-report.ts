import type {
  CompressionContext,
  CompressionState,
  MemoryCardDraft,
  StrategyName,
  StrategyReport,
  SummarizerFallback,
} from '../contracts/index.js';

/** What a strategy body found to do; `undefined` state means "nothing changed". */
export interface StrategyOutcome {
  state?: CompressionState;
  messagesAffected?: number;
  summarizerCalls?: number;
  offloadIds?: string[];
  cards?: MemoryCardDraft[];
  fallback?: SummarizerFallback;
}

/**
 * Runs a strategy body with the bookkeeping every strategy shares: the early stop when the prompt
 * is already at or under `targetTokens`, token counts before and after, timing and the report.
 */
export async function runStrategy(
  name: StrategyName,
  state: CompressionState,
  context: CompressionContext,
  body: (tokens: number) => Promise<StrategyOutcome>,
): Promise<{ state: CompressionState; report: StrategyReport }> {
  const started = performance.now();
  const tokensBefore = context.counter.countMessages(state.messages);
  const outcome: StrategyOutcome =
    tokensBefore <= context.targetTokens ? {} : await body(tokensBefore);
  const next = outcome.state ?? state;
  const applied = next !== state;
  const report: StrategyReport = {
    strategy: name,
    applied,
    tokensBefore,
    tokensAfter: applied ? context.counter.countMessages(next.messages) : tokensBefore,
    messagesAffected: applied ? (outcome.messagesAffected ?? 0) : 0,
    summarizerCalls: outcome.summarizerCalls ?? 0,
    durationMs: performance.now() - started,
    ...(outcome.fallback ? { fallback: outcome.fallback } : {}),
    ...(outcome.cards && outcome.cards.length > 0 ? { cards: outcome.cards } : {}),
    ...(applied && outcome.offloadIds && outcome.offloadIds.length > 0
      ? { offloadIds: outcome.offloadIds }
      : {}),
  };
  return { state: next, report };
}

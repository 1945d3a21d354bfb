import type {
  CompressionContext,
  CompressionState,
  MemoryCardDraft,
  Message,
  StructuredSummary,
  SummarizerFallback,
} from '../contracts/index.js';
import { summarizerFailureOf } from '../errors/index.js';
import { isPairSafeCut, newestProviderCompaction, splitRounds } from '../messages/index.js';
import { fitSummary, parseRenderedSummary } from '../summarize/index.js';
import { currentRoundSavings } from './current-round.js';
import { isSummaryMessage, type PromptLayout, summaryMessage, withLeadingBlock } from './layout.js';

/** The rolling summary of `state`: its structured form, or the rendered summary message read back. */
export function currentSummary(state: CompressionState): StructuredSummary | undefined {
  if (state.summary) return state.summary;
  const message = state.messages.find(isSummaryMessage);
  return message && typeof message.content === 'string'
    ? parseRenderedSummary(message.content)
    : undefined;
}

/**
 * Where history may be cut: the start of each round after the first (a user message, so the
 * first kept message is a user message) and the start of the current round, pair-safe only.
 * Ascending, so a larger cut evicts more.
 *
 * A provider's compaction (Anthropic's `compaction` block, an OpenAI compaction item) is the
 * provider's own summary of everything before it, which it reads instead of that history: the
 * round holding the newest one is never evicted, so cuts stop at its start. The rounds before it
 * are compacted as usual. `keepProviderCompaction: false` lifts this, for the budget guard's last
 * resort before failing a call.
 */
export function historyCuts(
  messages: readonly Message[],
  layout: PromptLayout,
  { keepProviderCompaction = true }: { keepProviderCompaction?: boolean } = {},
): number[] {
  const rounds = splitRounds(messages, layout.historyStart, layout.currentStart);
  const pinned = keepProviderCompaction ? newestProviderCompaction(messages) : -1;
  const cuts = rounds
    .map((round) => round.end)
    .filter((cut) => cut > layout.historyStart && (pinned === -1 || cut <= pinned));
  return cuts.filter((cut) => isPairSafeCut(messages, cut));
}

/** Messages in `[from, to)` that are not system messages (what a cut leaves in the history). */
export function countKept(messages: readonly Message[], from: number, to: number): number {
  let kept = 0;
  for (let index = from; index < to; index++) if (messages[index]!.role !== 'system') kept++;
  return kept;
}

/**
 * How large a summary is estimated to be, as a share of the messages it folds in. An estimate on
 * the small side evicts less; `summarize-rounds` then folds in more if the real summary overshoots.
 */
export const SUMMARY_SIZE_ESTIMATE = 0.25;

/**
 * Picks the cut for a summary eviction. Estimates the prompt after each cut (the summary counted
 * as the old summary plus a quarter of the evicted messages, capped at `summaryMaxTokens` and at
 * the summarizer's `maxSummaryTokens`),
 * then prefers, in order: the smallest cut that keeps `minMessagesToKeep` messages and lands at or
 * under target; the largest cut that keeps them and fits the budget; the smallest cut that lands
 * at or under target; the smallest cut that fits the budget; everything.
 */
export function chooseCut(
  state: CompressionState,
  layout: PromptLayout,
  context: CompressionContext,
  cuts: readonly number[],
): number | undefined {
  if (cuts.length === 0) return undefined;
  const { counter, settings } = context;
  const messages = state.messages;
  const summary = currentSummary(state);
  const emptySystem = counter.countMessage({ role: 'system', content: '' });
  const summaryTokens = summary ? counter.countMessage(summaryMessage(summary)) - emptySystem : 0;

  // Prefix sums let every cut be estimated in O(1).
  const prefix = [0];
  const systemPrefix = [0];
  for (const message of messages) {
    const tokens = isSummaryMessage(message) ? 0 : counter.countMessage(message);
    prefix.push(prefix.at(-1)! + tokens);
    systemPrefix.push(systemPrefix.at(-1)! + (message.role === 'system' ? tokens : 0));
  }
  const total = counter.promptOverhead + prefix.at(-1)!;
  // A summarizer that writes less than the room (a model asked for a bounded summary) is planned
  // with what it writes, so that the room it leaves keeps recent messages instead.
  const summaryCap = Math.min(
    settings.summaryMaxTokens,
    context.summarizer.maxSummaryTokens ?? Number.POSITIVE_INFINITY,
  );
  const estimate = (cut: number) => {
    const evicted = prefix[cut]! - prefix[layout.historyStart]!;
    const hoisted = systemPrefix[cut]! - systemPrefix[layout.historyStart]!;
    const summaryAfter = Math.min(
      summaryCap,
      summaryTokens + Math.ceil((evicted - hoisted) * SUMMARY_SIZE_ESTIMATE),
    );
    return total - evicted + hoisted + emptySystem + summaryAfter;
  };

  const keeping = cuts.filter(
    (cut) => countKept(messages, cut, layout.currentStart) >= settings.minMessagesToKeep,
  );
  const atTarget = (cut: number) => estimate(cut) <= context.targetTokens;
  const inBudget = (cut: number) => estimate(cut) <= context.budgetTokens;
  // Whether the budget allows keeping recent history counts what compressing the current round
  // will save: a huge tool result there is offloaded rather than the recent turns summarized.
  const savings = currentRoundSavings(messages, context);
  const largestKeeping = keeping.at(-1);
  return (
    keeping.find(atTarget) ??
    (largestKeeping !== undefined && estimate(largestKeeping) - savings <= context.budgetTokens
      ? largestKeeping
      : undefined) ??
    cuts.find(atTarget) ??
    cuts.find(inBudget) ??
    cuts.at(-1)
  );
}

export interface EvictionResult {
  state?: CompressionState;
  messagesAffected: number;
  summarizerCalls: number;
  cards: MemoryCardDraft[];
  fallback?: SummarizerFallback;
}

/**
 * Folds `messages[historyStart, cut)` into the ONE rolling summary: the summarizer gets the
 * previous summary and the evicted messages, and its result replaces the summary message (placed
 * last in the leading system block). System messages among the evicted ones are kept verbatim in
 * the system block; memory injections are dropped (they are derived and re-injected). When the
 * summarizer throws, nothing changes and the failure is reported — never an error text as summary.
 */
export async function evictIntoSummary(
  state: CompressionState,
  layout: PromptLayout,
  context: CompressionContext,
  cut: number,
): Promise<EvictionResult> {
  const messages = state.messages;
  const evicted = messages.slice(layout.historyStart, cut);
  const hoisted = evicted.filter(
    (message) => message.role === 'system' && !isSummaryMessage(message),
  );
  const toSummarize = evicted.filter(
    (message) => message.role !== 'system' && message.ctxmem?.kind !== 'memory-injection',
  );
  if (evicted.length === 0) return { messagesAffected: 0, summarizerCalls: 0, cards: [] };

  const previousSummary = currentSummary(state);
  const { summarizer, counter, settings } = context;
  let summary = previousSummary;
  let summarizerCalls = 0;
  let cards: MemoryCardDraft[] = [];
  let fallback: SummarizerFallback | undefined;
  if (toSummarize.length > 0) {
    try {
      const result = await summarizer.summarize({
        messages: toSummarize,
        ...(previousSummary ? { previousSummary } : {}),
        maxTokens: settings.summaryMaxTokens,
        ...(context.abortSignal ? { abortSignal: context.abortSignal } : {}),
      });
      summarizerCalls = result.calls;
      cards = result.cards;
      fallback = result.fallback;
      // A summarizer that overshoots its budget is trimmed rather than trusted.
      summary = fitSummary(result.summary, settings.summaryMaxTokens, counter);
    } catch (error) {
      context.abortSignal?.throwIfAborted();
      return {
        messagesAffected: 0,
        summarizerCalls: 1,
        cards: [],
        fallback: {
          from: summarizer.name,
          ...summarizerFailureOf(error),
          reason: `summarizer failed, history left unchanged: ${error instanceof Error ? error.message : String(error)}`,
        },
      };
    }
  }
  const next = withLeadingBlock(
    messages.slice(0, layout.historyStart),
    hoisted,
    summary ? summaryMessage(summary) : undefined,
    messages.slice(cut),
  );
  return {
    state: { messages: next, ...(summary ? { summary } : {}) },
    messagesAffected: toSummarize.length,
    summarizerCalls,
    cards,
    ...(fallback ? { fallback } : {}),
  };
}

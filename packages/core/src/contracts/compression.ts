import type { MemoryCardDraft } from './memory-card.js';
import type { Message } from './message.js';
import type { OffloadStore } from './offload-store.js';
import type { Scope } from './scope.js';
import type { StructuredSummary, Summarizer, SummarizerFallback } from './summarizer.js';
import type { TokenCounter } from './token-counter.js';

export type StrategyName =
  | 'tool-runs'
  | 'offload-keep-recent'
  | 'offload-all'
  | 'summarize-rounds'
  | 'current-round'
  | 'recent-only'
  | 'summary-only';

/** What the strategies work on. Strategies return a new state and never mutate this one. */
export interface CompressionState {
  /** Working messages in prompt order; may contain one summary message (`ctxmem.kind === 'summary'`). */
  messages: readonly Message[];
  /** The rolling summary the summary message renders. */
  summary?: StructuredSummary;
}

export interface CompressionSettings {
  /** Runs of more than this many consecutive historical tool calls are compressed. @default 4 */
  toolRunThreshold: number;
  /** Messages larger than this many characters are offloaded. @default 5120 */
  largePayloadChars: number;
  /** Characters of preview left in place of offloaded content. @default 200 */
  offloadPreviewChars: number;
  /** Large messages among the last N that `offload-keep-recent` leaves alone. @default 2 */
  offloadKeepRecent: number;
  /** Messages always kept verbatim at the end of history (besides the current round). @default 4 */
  minMessagesToKeep: number;
  /**
   * Token budget of the rendered summary, when set: a cap the user chooses. When not set, the
   * summary may take 70 % of the compaction target, at least 1,200 and at most 8,000 tokens
   * (`SUMMARY_SHARE_OF_TARGET`), so that a long history in a small budget keeps a summary big
   * enough to carry it. A model summarizer writes at most its own `maxSummaryTokens` of it.
   * @default 70 % of the target, within [1200, 8000]
   */
  summaryMaxTokens: number;
  /** Rounds kept by the `recent-only` history strategy. @default 3 */
  recentRounds: number;
}

export interface CompressionContext {
  counter: TokenCounter;
  /** Strategies stop once the prompt is at or under this many tokens. */
  targetTokens: number;
  /** The hard limit the final prompt must respect. */
  budgetTokens: number;
  summarizer: Summarizer;
  offloadStore: OffloadStore;
  scope: Scope;
  settings: CompressionSettings;
  abortSignal?: AbortSignal;
}

export interface StrategyReport {
  strategy: StrategyName;
  applied: boolean;
  tokensBefore: number;
  tokensAfter: number;
  messagesAffected: number;
  summarizerCalls: number;
  durationMs: number;
  /** Set when a summarizer failed and a fallback was used. */
  fallback?: SummarizerFallback;
  /** Memory cards extracted by summarization. */
  cards?: MemoryCardDraft[];
  /** Offload ids written by this strategy. */
  offloadIds?: string[];
}

/** A pure strategy: `(state, context) → { state, report }`. */
export interface CompressionStrategy {
  readonly name: StrategyName;
  apply(
    state: CompressionState,
    context: CompressionContext,
  ): Promise<{ state: CompressionState; report: StrategyReport }>;
}

/** What one compaction did, end to end. */
export interface CompactionReport {
  tokensBefore: number;
  tokensAfter: number;
  budgetTokens: number;
  targetTokens: number;
  strategies: StrategyReport[];
  summarizerCalls: number;
  durationMs: number;
  /** Why it ran: `threshold`, `reserve`, `message-count`, `manual` or `forced-by-budget`. */
  trigger: CompactionTrigger;
}

export type CompactionTrigger = 'threshold' | 'reserve' | 'message-count' | 'manual' | 'budget';

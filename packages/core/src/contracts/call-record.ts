import type { CompactionTrigger, StrategyReport } from './compression.js';
import type { SummarizerFallback } from './summarizer.js';

/**
 * Tokens of one prepared prompt by part, in the order the inspector stacks them. The message parts
 * add up to the prompt's tokens; `toolDefinitions`, `reserved` and `outputReserve` are the rest of
 * the window the request takes.
 */
export interface CallComposition {
  /** System messages (and a bootstrap block), with the prompt's own few tokens of overhead. */
  system: number;
  /** The rolling summary message. */
  summary: number;
  /** The injected `## Relevant Memories` block. */
  memories: number;
  /** User and assistant messages kept word for word. */
  history: number;
  /** Tool-run records, offload previews and compressed results that stand for longer content. */
  compressed: number;
  /** Tool results kept word for word. */
  toolResults: number;
  /** The request's tool definitions. */
  toolDefinitions: number;
  /** Tokens the caller adds around the messages (`PrepareOptions.reservedTokens`). */
  reserved: number;
  /** Kept free for the reply. */
  outputReserve: number;
}

/** A strategy that ran in a call's compaction (see `StrategyReport`). */
export interface CallStrategy
  extends Pick<
    StrategyReport,
    'strategy' | 'applied' | 'tokensBefore' | 'tokensAfter' | 'messagesAffected' | 'summarizerCalls'
  > {
  /**
   * Set when a summarizer failed and a fallback wrote the summary (or, from `budget-guard`, when
   * the budget guard had to cut): the summarizer that failed and why, as a kind and an error
   * class. Its reason in words stays out of the record, which is stored (an error message can
   * quote the conversation or a credential); the `summarizer-fallback` event carries it.
   */
  fallback?: Omit<SummarizerFallback, 'reason'>;
}

/** How the prompt of a call got its compacted part. */
export type CallCompactionSource =
  /** Compacted in this call. */
  | 'compacted'
  /** Prepared by a background compaction and adopted at this call. */
  | 'background'
  /** Another instance sharing the store had compacted the session: its stored state was adopted. */
  | 'stored'
  /** The same history was compacted at the same budget before (a resent request): reused as is. */
  | 'reused'
  /**
   * Another instance held the session's compaction lease: compacted in this call with the
   * extractive summarizer, and not written (the lease holder's summary is adopted next).
   */
  | 'offline-while-leased';

/** What a call's compaction did. */
export interface CallCompaction {
  source: CallCompactionSource;
  /** Absent for `stored` (another instance ran it). */
  trigger?: CompactionTrigger;
  /** Empty for `stored` and `reused`. */
  strategies: CallStrategy[];
  summarizerCalls: number;
  /** The manager's summarizer chain, for example `model>extractive`. */
  summarizer: string;
  /** Offloads written by the compaction (their originals are in the offload store). */
  offloadIds: string[];
}

/** How the provider's count compared with ctxmem's for a call. */
export interface CallCalibration {
  /** Provider tokens per counted token the call's budget used (1: counts taken as they are). */
  ratio: number;
  /** Provider reports the ratio was learned from (0: the prior alone). */
  observations: number;
  /**
   * The input tokens the provider reported for this call (cached ones included), when the adapter
   * handed its usage over.
   */
  providerTokens?: number;
}

/** A call prepared again because the provider rejected the previous attempt as too long. */
export interface CallOverflow {
  /** ctxmem's count of the rejected request's input (messages, tool definitions, reserved). */
  countedTokens: number;
  /** The provider's count of it, when its error said. */
  providerTokens?: number;
  /** The provider's limit, when its error said. */
  limitTokens?: number;
  /** `retried`: this call is the one retry; `rejected-again`: the retry was rejected too. */
  outcome: 'retried' | 'rejected-again';
}

/**
 * One prepared call, as the context manager recorded it: what the model received and why. The
 * manager keeps the last few in the session's working state (`WorkingState.calls`), so an
 * inspector shows real calls instead of a replay.
 */
export interface CallRecord {
  /** ISO 8601 time the call was prepared. */
  at: string;
  /** Messages of the original history the call was made with. */
  historyMessages: number;
  /**
   * Tokens of the working messages before this call's compaction and memory injection: the
   * prompt as it would have been without them.
   */
  tokensBefore: number;
  /** Tokens of the prepared messages. */
  tokens: number;
  budget: {
    contextWindow: number;
    budgetTokens: number;
    triggerTokens: number;
    targetTokens: number;
  };
  composition: CallComposition;
  compaction?: CallCompaction;
  /** Memory cards injected before the newest user message, best first. */
  memories: Array<{ id: string; score: number }>;
  /** Offloads the prompt refers to by preview: their originals are one `reload_context` away. */
  offloadIds: string[];
  /** Repairs made to the host's history before it was prepared (`input-repaired`). */
  repairs?: string[];
  /** The count ratio the budget used and, once reported, the provider's count of the call. */
  calibration?: CallCalibration;
  /** Set on the retry of a call the provider rejected as too long. */
  overflow?: CallOverflow;
}

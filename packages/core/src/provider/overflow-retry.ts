import type { ContextOverflow } from './detect-context-overflow.js';

/**
 * Added to the ratio the provider's numbers show when a rejected request is prepared again, so
 * the retry lands safely under its limit rather than on it.
 */
export const OVERFLOW_RETRY_MARGIN = 0.05;

/**
 * Without the provider's numbers, the retry's messages get at most this share of the rejected
 * request's messages (and the compaction then lands at its usual target inside that).
 */
export const OVERFLOW_RETRY_SHARE = 0.75;

/** What ctxmem knew of the rejected request. */
export interface RejectedRequest {
  /** ctxmem's count of its whole input: messages, tool definitions, reserved tokens. */
  requestTokens: number;
  /** ctxmem's count of its messages. */
  tokens: number;
  /** The count ratio its budget used. */
  ratio: number;
  /** The window its budget used. */
  contextWindow: number;
}

/** How the retry of a rejected request is budgeted. */
export interface OverflowRetryPlan {
  /** Provider tokens per counted token for the retry's budget. */
  ratio: number;
  /** The window for the retry's budget: the provider's limit when it is smaller than the model's. */
  contextWindow: number;
  /** The retry's messages get at most this many counted tokens, so the retry always shrinks. */
  maxMessageTokens: number;
  /** The provider's count divided by ctxmem's, when the error had the provider's count. */
  observedRatio?: number;
}

/**
 * The policy for the one retry after a "too long" rejection. With the provider's count of the
 * input, the ratio it shows (provider ÷ ctxmem) plus 5 % replaces the budget's ratio when higher;
 * with its limit, the limit replaces the window when smaller; either way the retry's messages get
 * fewer tokens than the rejected ones had. Without numbers (or numbers that explain nothing), the
 * retry's messages get at most 75 % of the rejected ones' tokens. The compaction that follows
 * lands at its usual target (`retainedRatio`) inside the retry's budget.
 */
export function planOverflowRetry(
  overflow: Pick<ContextOverflow, 'providerTokens' | 'limitTokens'>,
  rejected: RejectedRequest,
): OverflowRetryPlan {
  const { providerTokens, limitTokens } = overflow;
  const observedRatio =
    providerTokens !== undefined && rejected.requestTokens > 0
      ? providerTokens / rejected.requestTokens
      : undefined;
  const smallerLimit = limitTokens !== undefined && limitTokens < rejected.contextWindow;
  const contextWindow = smallerLimit ? limitTokens : rejected.contextWindow;
  const explained = (observedRatio !== undefined && observedRatio > rejected.ratio) || smallerLimit;
  if (!explained) {
    return {
      ratio: rejected.ratio,
      contextWindow,
      maxMessageTokens: Math.max(1, Math.floor(OVERFLOW_RETRY_SHARE * rejected.tokens)),
      ...(observedRatio === undefined ? {} : { observedRatio }),
    };
  }
  const base = Math.max(rejected.ratio, observedRatio ?? 0);
  return {
    ratio: base * (1 + OVERFLOW_RETRY_MARGIN),
    contextWindow,
    maxMessageTokens: Math.max(1, rejected.tokens - 1),
    ...(observedRatio === undefined ? {} : { observedRatio }),
  };
}

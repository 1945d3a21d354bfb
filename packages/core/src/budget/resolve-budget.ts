import { InvalidArgumentError } from '../errors/index.js';

export interface ReserveOptions {
  /** Share of the window kept free for the next reply. @default 0.1 */
  ratio?: number;
  /** Tokens kept free at least (scaled down for small windows). @default 2000 */
  min?: number;
}

export interface ResolveBudgetOptions {
  /** The model's context window in tokens (a positive integer). */
  contextWindow: number;
  /** Compaction starts when the prompt reaches this share of the window. @default 0.8 */
  threshold?: number;
  /** A compaction aims for this share of the window, so the next turn does not compact again. @default 0.6 */
  retainedRatio?: number;
  /** Room left for the model's reply. @default { ratio: 0.1, min: 2000 } */
  reserve?: ReserveOptions;
  /** Also compact when the prompt has more messages than this. @default undefined (no limit) */
  maxMessages?: number;
}

/** The token figures every compaction decision is made against. */
export interface Budget {
  contextWindow: number;
  /** Tokens kept free for the reply: `max(ratio × window, min)`, never more than a quarter of the window. */
  reserveTokens: number;
  /** The hard limit of a prompt: `contextWindow − reserveTokens`. */
  budgetTokens: number;
  /** Compaction triggers at this many tokens (`threshold × window`, never above `budgetTokens`). */
  triggerTokens: number;
  /** Compaction compresses down to this many tokens (`retainedRatio × window`, never above `triggerTokens`). */
  targetTokens: number;
  maxMessages: number | undefined;
}

/** The reserve never takes more than this share of the window, so small windows stay usable. */
const MAX_RESERVE_SHARE = 0.25;

function requireRatio(value: number, argument: string, { allowZero = false } = {}): void {
  const inRange = allowZero ? value >= 0 && value < 1 : value > 0 && value <= 1;
  if (typeof value !== 'number' || !Number.isFinite(value) || !inRange) {
    throw new InvalidArgumentError({
      message: `${argument} must be a number in ${allowZero ? '[0, 1)' : '(0, 1]'}, got ${value}`,
      argument,
    });
  }
}

function requireInteger(value: number, argument: string, minimum: number): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < minimum) {
    throw new InvalidArgumentError({
      message: `${argument} must be an integer ≥ ${minimum}, got ${value}`,
      argument,
    });
  }
}

/**
 * Turns a context window and ratios into token figures (trigger at 80 %, keep 10 % or
 * 2,000 tokens free, land at 60 % after a compaction). Throws `InvalidArgumentError` for a
 * window that is not a positive integer, ratios outside (0, 1], a retained ratio above the
 * threshold, or a bad reserve or message limit.
 */
export function resolveBudget({
  contextWindow,
  threshold = 0.8,
  retainedRatio = 0.6,
  reserve = {},
  maxMessages,
}: ResolveBudgetOptions): Budget {
  requireInteger(contextWindow, 'contextWindow', 1);
  requireRatio(threshold, 'threshold');
  requireRatio(retainedRatio, 'retainedRatio');
  if (retainedRatio > threshold) {
    throw new InvalidArgumentError({
      message: `retainedRatio (${retainedRatio}) must not exceed threshold (${threshold}): a compaction would end above its own trigger`,
      argument: 'retainedRatio',
    });
  }
  const { ratio: reserveRatio = 0.1, min: reserveMin = 2_000 } = reserve;
  requireRatio(reserveRatio, 'reserve.ratio', { allowZero: true });
  requireInteger(reserveMin, 'reserve.min', 0);
  if (maxMessages !== undefined) requireInteger(maxMessages, 'maxMessages', 1);

  const reserveTokens = Math.min(
    Math.max(Math.ceil(reserveRatio * contextWindow), reserveMin),
    Math.floor(MAX_RESERVE_SHARE * contextWindow),
  );
  const budgetTokens = contextWindow - reserveTokens;
  const triggerTokens = Math.max(1, Math.min(Math.floor(threshold * contextWindow), budgetTokens));
  const targetTokens = Math.max(
    1,
    Math.min(Math.floor(retainedRatio * contextWindow), triggerTokens),
  );
  return { contextWindow, reserveTokens, budgetTokens, triggerTokens, targetTokens, maxMessages };
}

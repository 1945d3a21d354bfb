import { BudgetExceededError, InvalidArgumentError } from '../errors/index.js';
import { requireOptions } from '../validation/index.js';

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
  /**
   * Tokens of the request that are not messages and cannot be compacted: tool definitions, for
   * example. They come off the window before anything else.
   * @default 0
   */
  fixedTokens?: number;
  /**
   * The output the request asks for (`maxOutputTokens`, `max_tokens`). When set it is the reserve,
   * exactly; when unset `reserve` applies.
   * @default undefined (the `reserve` default)
   */
  outputTokens?: number;
  /**
   * How many of the provider's tokens one counted token stands for: the correction of ctxmem's
   * count toward the provider's (see `createCountCalibration`). The window and the output are the
   * provider's tokens; the messages, tool definitions and `fixedTokens` are counted ones, so the
   * room they get is the window less the output, divided by this ratio.
   * @default 1 (counts taken as they are)
   */
  countRatio?: number;
}

/** The token figures every compaction decision is made against. */
export interface Budget {
  contextWindow: number;
  /**
   * Provider tokens per counted token these figures were computed with (1: counts taken as they
   * are). `contextWindow` and `reserveTokens` are the provider's tokens; the other figures are
   * counted ones, and `(messages + fixedTokens) × countRatio + reserveTokens ≤ contextWindow`.
   */
  countRatio: number;
  /** Tokens of the request outside its messages (tool definitions). */
  fixedTokens: number;
  /**
   * Tokens kept free for the reply: the requested output when there is one, otherwise
   * `max(ratio × window, min)`, never more than a quarter of the window.
   */
  reserveTokens: number;
  /**
   * The hard limit of the messages (system included): `(contextWindow − reserveTokens) / countRatio
   * − fixedTokens` (with ratio 1: `contextWindow − fixedTokens − reserveTokens`).
   */
  budgetTokens: number;
  /** Compaction triggers at this many tokens (`threshold × (window / countRatio − fixed)`, never above `budgetTokens`). */
  triggerTokens: number;
  /**
   * Compaction compresses down to this many tokens: `retainedRatio × (window / countRatio −
   * fixed)`, and never above `retainedRatio / threshold` of `triggerTokens`, so that a trigger
   * capped by the budget still leaves room between a compaction and the next.
   */
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
 * Turns a context window and ratios into token figures for the messages of one request: the
 * window minus what cannot be compacted (tool definitions: `fixedTokens`) minus the reply's
 * reserve (the requested output when known, otherwise 10 % or 2,000 tokens); compaction triggers
 * at 80 % and lands at 60 % of what the fixed costs leave. With a `countRatio` above 1 the room
 * for counted tokens is the window divided by it. Throws `InvalidArgumentError` for a window that
 * is not a positive integer, ratios outside (0, 1], a retained ratio above the threshold, a count
 * ratio that is not a positive number, or a bad reserve, output or message limit, and
 * `BudgetExceededError` (with the numbers) when the fixed costs and the output leave no room for
 * messages at all.
 */
export function resolveBudget(options: ResolveBudgetOptions): Budget {
  const {
    contextWindow,
    threshold = 0.8,
    retainedRatio = 0.6,
    reserve = {},
    maxMessages,
    fixedTokens = 0,
    outputTokens,
    countRatio = 1,
  } = requireOptions(options, 'resolveBudget');
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
  requireInteger(fixedTokens, 'fixedTokens', 0);
  if (outputTokens !== undefined) requireInteger(outputTokens, 'outputTokens', 1);
  if (typeof countRatio !== 'number' || !Number.isFinite(countRatio) || countRatio <= 0) {
    throw new InvalidArgumentError({
      message: `countRatio must be a positive number, got ${countRatio}`,
      argument: 'countRatio',
    });
  }

  const reserveTokens =
    outputTokens ??
    Math.min(
      Math.max(Math.ceil(reserveRatio * contextWindow), reserveMin),
      Math.floor(MAX_RESERVE_SHARE * contextWindow),
    );
  // Counted tokens the window holds besides the output, and in all: the provider's tokens divided
  // by the ratio (floored, so rounding never adds room).
  const countedRoom = Math.floor((contextWindow - reserveTokens) / countRatio);
  const budgetTokens = countedRoom - fixedTokens;
  if (budgetTokens < 1) {
    const scaled = countRatio === 1 ? '' : ` (counted ×${countRatio}, as the provider counts)`;
    throw new BudgetExceededError({
      message: `The request cannot fit a ${contextWindow}-token window: ${fixedTokens} tokens of tool definitions${scaled} and ${reserveTokens} tokens of output leave ${budgetTokens} for the messages.`,
      requiredTokens: Math.ceil(fixedTokens * countRatio) + reserveTokens + 1,
      budgetTokens: contextWindow,
    });
  }
  const room = Math.floor(contextWindow / countRatio) - fixedTokens;
  const triggerTokens = Math.max(1, Math.min(Math.floor(threshold * room), budgetTokens));
  // When tools and output cap the trigger at the budget, the target keeps its distance below the
  // trigger (retainedRatio / threshold of it): landing just under the trigger would compact again
  // on the next call (a 16k window with 25 tools and maxOutputTokens 4,096 left 16 tokens between them).
  const targetTokens = Math.max(
    1,
    Math.min(
      Math.floor(retainedRatio * room),
      // The epsilon absorbs the ratios' rounding (6,184 × 0.6 / 0.8 is 4,637.99…).
      Math.floor((triggerTokens * retainedRatio) / threshold + 1e-9),
    ),
  );
  return {
    contextWindow,
    countRatio,
    fixedTokens,
    reserveTokens,
    budgetTokens,
    triggerTokens,
    targetTokens,
    maxMessages,
  };
}

/**
 * What a host that formats the prompt around ctxmem's messages reserves for its own parts (a
 * prompt template's system message, the new input) when it cannot count them: room for a system
 * prompt of a few paragraphs. Hosts that can count them pass the exact number instead.
 */
export const DEFAULT_TEMPLATE_RESERVE_TOKENS = 1_000;

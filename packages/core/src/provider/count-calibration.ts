import type { CountCalibrationState } from '../contracts/index.js';
import { InvalidArgumentError } from '../errors/index.js';
import { hasPublicTokenizer, UNKNOWN_TOKENIZER_MARGIN } from '../tokens/index.js';
import { requireOptions } from '../validation/index.js';

/**
 * The count ratio a budget starts from, before the provider has reported a count: 1 for a model
 * whose tokenizer is public (OpenAI's: ctxmem counts with it) or when no model is named,
 * `UNKNOWN_TOKENIZER_MARGIN` (1.2) for any other model (Claude, Gemini, Llama…), whose provider
 * may cut text into more tokens than `o200k_base` does. Every entry point (the context manager,
 * so the AI SDK middleware and the LangChain adapters, and the CLI) starts from this one rule.
 */
export function defaultCountRatio(model: string | undefined): number {
  return model === undefined || hasPublicTokenizer(model) ? 1 : UNKNOWN_TOKENIZER_MARGIN;
}

/** The bounds of a learned count ratio: never below ctxmem's own count, never above 3 times it. */
export const COUNT_RATIO_BOUNDS = Object.freeze({ min: 1, max: 3 });

/** Observations kept, the most recent: the mix of a conversation's content drifts. */
export const CALIBRATION_OBSERVATIONS = 32;

/**
 * The quantile of the observed ratios (weighted by the counted tokens of each request) the ratio
 * is taken at: above the median, so the budget leans to over-estimating the provider's count.
 */
export const CALIBRATION_QUANTILE = 0.8;

/** Added to the learned ratio, for the turn-to-turn spread of denser and lighter content. */
export const CALIBRATION_MARGIN = 0.02;

/**
 * Counted tokens the prior weighs as, like one observation of this size: a first small request
 * (whose fixed framing makes its ratio high) does not outweigh it, a large one does.
 */
export const CALIBRATION_PRIOR_WEIGHT = 2_000;

/** Requests counted below this many tokens are not observed: fixed framing dominates their ratio. */
export const MIN_OBSERVED_TOKENS = 256;

/**
 * A ratio beyond this factor either way is not a tokenizer's difference but a mismatch (usage of
 * another request, a provider-side compaction): such an observation is ignored.
 */
const MAX_PLAUSIBLE_FACTOR = 10;

export interface CountCalibrationOptions {
  /**
   * The ratio before any observation.
   * @default defaultCountRatio(model): 1.2 for a model without a public tokenizer, else 1
   */
  prior?: number;
  /**
   * Learn from the provider's reported counts. When false the ratio stays at `prior`.
   * @default true
   */
  learn?: boolean;
}

/** What the manager reads and feeds: the current ratio, observations, and its persisted form. */
export interface CountCalibration {
  /** The ratio the next budget uses: bounded, rounded up to a hundredth. */
  ratio(): number;
  /** Observations the ratio is learned from (0: the prior alone). */
  observations(): number;
  /**
   * Compares ctxmem's count of a request's whole input with the provider's count of it (usage,
   * or the count in its overflow error). Returns whether the observation was kept.
   */
  observe(countedTokens: number, providerTokens: number): boolean;
  /** The state to persist; undefined while nothing was observed. */
  snapshot(): CountCalibrationState | undefined;
  /**
   * Adopts a persisted state when it belongs to the same model and counter and holds more
   * observations than this one has made (a restarted process); ignores anything malformed.
   */
  adopt(state: unknown): boolean;
}

function checkRatio(value: number, argument: string): number {
  if (
    typeof value !== 'number' ||
    !Number.isFinite(value) ||
    value < COUNT_RATIO_BOUNDS.min ||
    value > COUNT_RATIO_BOUNDS.max
  ) {
    throw new InvalidArgumentError({
      message: `${argument} must be a number from ${COUNT_RATIO_BOUNDS.min} to ${COUNT_RATIO_BOUNDS.max}, got ${String(value)}`,
      argument,
    });
  }
  return value;
}

function plausible(counted: unknown, provider: unknown): boolean {
  if (typeof counted !== 'number' || typeof provider !== 'number') return false;
  if (!Number.isFinite(counted) || !Number.isFinite(provider)) return false;
  if (counted < MIN_OBSERVED_TOKENS || provider <= 0) return false;
  const ratio = provider / counted;
  return ratio <= MAX_PLAUSIBLE_FACTOR && ratio >= 1 / MAX_PLAUSIBLE_FACTOR;
}

/**
 * The weighted quantile `q` of `(ratio, weight)` pairs: the smallest ratio whose cumulative weight,
 * from the smallest up, reaches `q` of the total.
 */
export function weightedQuantile(
  pairs: ReadonlyArray<{ ratio: number; weight: number }>,
  q: number,
): number {
  const sorted = [...pairs].sort((left, right) => left.ratio - right.ratio);
  const total = sorted.reduce((sum, pair) => sum + pair.weight, 0);
  let cumulative = 0;
  for (const pair of sorted) {
    cumulative += pair.weight;
    if (cumulative >= q * total) return pair.ratio;
  }
  return sorted.at(-1)?.ratio ?? Number.NaN;
}

/**
 * Learns how far ctxmem's count of a request is from the provider's, for one model and counter.
 * Each observation is the provider's count of a request's whole input (its reported input
 * tokens, cached ones included) divided by ctxmem's count of what it sent (messages, tool
 * definitions and the tokens reserved around them). The ratio is the 0.8 quantile of the last 32
 * observations and the prior, each weighted by its counted tokens (large requests, where the
 * budget matters, count most; a few outliers move it by at most their weight), plus 2 %, rounded
 * up to a hundredth and kept within 1 and 3. Requests under 256 counted tokens, and ratios off
 * by more than a factor of 10, are not observed.
 */
export function createCountCalibration(
  options: CountCalibrationOptions & {
    /** The model and counter the ratios belong to: a persisted state of another key is ignored. */
    key: string;
    prior: number;
  },
): CountCalibration {
  const { key, prior, learn = true } = requireOptions(options, 'createCountCalibration');
  checkRatio(prior, 'calibration.prior');
  let observations: Array<[number, number]> = [];
  let total = 0;
  let cached: number | undefined;

  function compute(): number {
    if (observations.length === 0) return prior;
    const pairs = [
      { ratio: prior, weight: CALIBRATION_PRIOR_WEIGHT },
      ...observations.map(([counted, provider]) => ({
        ratio: provider / counted,
        weight: counted,
      })),
    ];
    const learned = weightedQuantile(pairs, CALIBRATION_QUANTILE) * (1 + CALIBRATION_MARGIN);
    const bounded = Math.min(COUNT_RATIO_BOUNDS.max, Math.max(COUNT_RATIO_BOUNDS.min, learned));
    // Rounded up to a hundredth, so budgets change in steps rather than on every call.
    return Math.min(COUNT_RATIO_BOUNDS.max, Math.ceil(bounded * 100 - 1e-9) / 100);
  }

  return {
    ratio() {
      cached ??= compute();
      return cached;
    },
    observations: () => observations.length,
    observe(countedTokens, providerTokens) {
      if (!learn || !plausible(countedTokens, providerTokens)) return false;
      observations.push([countedTokens, providerTokens]);
      if (observations.length > CALIBRATION_OBSERVATIONS) observations.shift();
      total++;
      cached = undefined;
      return true;
    },
    snapshot() {
      if (observations.length === 0) return undefined;
      return {
        key,
        observations: observations.map(([counted, provider]) => [counted, provider]),
        total,
      };
    },
    adopt(state) {
      if (!learn || typeof state !== 'object' || state === null) return false;
      const stored = state as Partial<CountCalibrationState>;
      if (stored.key !== key || !Array.isArray(stored.observations)) return false;
      const storedTotal =
        typeof stored.total === 'number' && Number.isSafeInteger(stored.total) ? stored.total : 0;
      if (storedTotal <= total) return false;
      const valid = stored.observations
        .filter(
          (pair): pair is [number, number] =>
            Array.isArray(pair) && pair.length === 2 && plausible(pair[0], pair[1]),
        )
        .slice(-CALIBRATION_OBSERVATIONS)
        .map(([counted, provider]): [number, number] => [counted, provider]);
      if (valid.length === 0) return false;
      observations = valid;
      total = storedTotal;
      cached = undefined;
      return true;
    },
  };
}

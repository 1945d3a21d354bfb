import type { TokenCounter } from '../contracts/index.js';
import { requireOptions } from '../validation/index.js';
import { buildCounter, type MessageCountOptions } from './build-counter.js';
import { estimateTextTokens } from './estimate-text-tokens.js';

export interface EstimateCounterOptions extends MessageCountOptions {
  /**
   * Message counts kept by content fingerprint. Off by default: fingerprinting a message costs
   * about as much as estimating it. Counts are still cached per message object.
   * @default 0
   */
  cacheSize?: number;
}

/**
 * A cheap token counter for hot paths: estimates text from character classes (see
 * `estimateTextTokens`) instead of running BPE, and counts messages exactly as
 * `createTokenCounter` does. Within 20% of o200k_base on each of the prose, code, JSON, CJK,
 * Cyrillic and base64 samples it is tested on (about 5% on average); use `createTokenCounter` where a
 * budget must hold exactly.
 */
export function createEstimateCounter(given: EstimateCounterOptions = {}): TokenCounter {
  const { cacheSize = 0, ...options } = requireOptions(given, 'createEstimateCounter');
  return buildCounter('estimate', estimateTextTokens, { ...options, cacheSize });
}

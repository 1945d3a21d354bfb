import { requireOptions } from '../validation/index.js';
export interface BackoffOptions {
  /** Delay before the first retry, ms. @default 50 */
  initialMs?: number;
  /** Longest delay, ms. @default 2000 */
  maxMs?: number;
}

/**
 * Exponential backoff with a cap: the delay before retry `retries` (0 for the first) is
 * `initialMs · 2^retries`, at most `maxMs`. A reconnecting client waits 50, 100, 200 … 2000 ms
 * by default: quick after a blip, and a server that is down for a while gets one attempt every
 * 2 seconds rather than a storm.
 */
export function exponentialBackoff(options: BackoffOptions = {}): (retries: number) => number {
  const { initialMs = 50, maxMs = 2_000 } = requireOptions(options, 'exponentialBackoff');
  return (retries) => Math.min(initialMs * 2 ** Math.max(0, retries), maxMs);
}

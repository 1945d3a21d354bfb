import type { SummarizeRequest, SummarizeResult, Summarizer } from '../contracts/index.js';
import { InvalidArgumentError, SummarizerError } from '../errors/index.js';
import { requirePositiveInteger } from './validate-options.js';

export interface CircuitBreakerOptions {
  /** Consecutive failures that open the circuit. @default 3 */
  failures?: number;
  /** How long an open circuit refuses calls before letting one through to try again. @default 60000 */
  cooldownMs?: number;
  /** The clock, for tests. @default Date.now */
  now?: () => number;
}

/**
 * Stops a dead summarizer from costing a timeout on every turn: after `failures` consecutive
 * failures the circuit opens and every call fails at once with `SummarizerError` (so a fallback
 * summarizer answers without waiting); after `cooldownMs` one call goes through (half-open), and
 * its success closes the circuit while its failure opens it for another cool-down. A caller's
 * abort and `InvalidArgumentError` are not the summarizer's fault and do not count.
 */
export function withCircuitBreaker(
  summarizer: Summarizer,
  { failures = 3, cooldownMs = 60_000, now = Date.now }: CircuitBreakerOptions = {},
): Summarizer {
  if (typeof summarizer?.summarize !== 'function') {
    throw new InvalidArgumentError({
      message: 'withCircuitBreaker needs a Summarizer',
      argument: 'summarizer',
    });
  }
  requirePositiveInteger('failures', failures);
  requirePositiveInteger('cooldownMs', cooldownMs);
  let consecutiveFailures = 0;
  let openUntil = 0;
  let trial: Promise<unknown> | undefined;

  return {
    name: summarizer.name,
    ...(summarizer.maxSummaryTokens === undefined
      ? {}
      : { maxSummaryTokens: summarizer.maxSummaryTokens }),
    async summarize(request: SummarizeRequest): Promise<SummarizeResult> {
      const open = consecutiveFailures >= failures;
      if (open && (now() < openUntil || trial !== undefined)) {
        throw new SummarizerError({
          message: `Summarizer ${summarizer.name}: not called, ${consecutiveFailures} calls in a row failed (circuit open for ${Math.max(0, Math.ceil((openUntil - now()) / 1000))} s more)`,
          summarizer: summarizer.name,
          kind: 'circuit-open',
        });
      }
      const call = summarizer.summarize(request);
      if (open) trial = call;
      try {
        const result = await call;
        consecutiveFailures = 0;
        return result;
      } catch (error) {
        if (!InvalidArgumentError.isInstance(error) && !request.abortSignal?.aborted) {
          consecutiveFailures++;
          if (consecutiveFailures >= failures) openUntil = now() + cooldownMs;
        }
        throw error;
      } finally {
        if (trial === call) trial = undefined;
      }
    },
  };
}

import type { SummarizeRequest, SummarizeResult, Summarizer } from '../contracts/index.js';
import { InvalidArgumentError, SummarizerError, summarizerFailureOf } from '../errors/index.js';

/**
 * A summarizer that tries `primary`, then each fallback in order, and returns the first result.
 * When a fallback produced it, the result says so: `fallback: { from, reason }` names the primary
 * and why it (and any fallback before the one that worked) failed. The recommended chain for a
 * model is `withFallback(modelSummarizer, extractiveSummarizer)`: the extractive summarizer needs
 * no model, so the chain only fails on a budget nothing can fit.
 *
 * Two failures stop the chain at once instead of falling back: the caller's `abortSignal` firing
 * (the caller asked to stop), and `InvalidArgumentError` (a bad request fails everywhere alike).
 * When every summarizer fails it throws `SummarizerError` listing each reason, with the last error
 * as its cause. A primary with a `maxSummaryTokens` bound lends it to the chain: a fallback is asked
 * for no more, since compaction planned with it.
 */
export function withFallback(primary: Summarizer, ...fallbacks: Summarizer[]): Summarizer {
  const chain = [primary, ...fallbacks];
  chain.forEach((summarizer, index) => {
    if (typeof summarizer?.summarize !== 'function') {
      throw new InvalidArgumentError({
        message: `withFallback: argument ${index + 1} is not a Summarizer`,
        argument: index === 0 ? 'primary' : 'fallbacks',
      });
    }
  });
  const name =
    fallbacks.length === 0 ? primary.name : chain.map((summarizer) => summarizer.name).join('>');

  return {
    name,
    // Compaction plans with what the primary writes; a fallback is the exception.
    ...(primary.maxSummaryTokens === undefined
      ? {}
      : { maxSummaryTokens: primary.maxSummaryTokens }),
    async summarize(request: SummarizeRequest): Promise<SummarizeResult> {
      const reasons: string[] = [];
      let firstError: unknown;
      let lastError: unknown;
      // A fallback writes no more than the primary would have: compaction planned its cut with
      // the primary's bound, and a larger summary would push the prompt over the plan.
      const fallbackRequest =
        primary.maxSummaryTokens !== undefined && primary.maxSummaryTokens < request.maxTokens
          ? { ...request, maxTokens: primary.maxSummaryTokens }
          : request;
      for (const [index, summarizer] of chain.entries()) {
        try {
          const result = await summarizer.summarize(index === 0 ? request : fallbackRequest);
          if (index === 0) return result;
          return {
            ...result,
            fallback: {
              from: primary.name,
              // The primary's failure as a kind and a class: words-free, so a record can keep it.
              ...summarizerFailureOf(firstError),
              // The primary's reason alone; later failures are named after their summarizer.
              reason: reasons
                .map((reason, position) =>
                  position === 0 ? reason : `then ${chain[position]!.name}: ${reason}`,
                )
                .join('; '),
            },
          };
        } catch (error) {
          if (InvalidArgumentError.isInstance(error)) throw error;
          if (request.abortSignal?.aborted) {
            throw SummarizerError.isInstance(error)
              ? error
              : new SummarizerError({
                  message: `Summarizer ${summarizer.name} was aborted`,
                  summarizer: summarizer.name,
                  kind: 'aborted',
                  cause: error,
                });
          }
          if (index === 0) firstError = error;
          lastError = error;
          reasons.push(error instanceof Error ? error.message : String(error));
        }
      }
      throw new SummarizerError({
        message: `Every summarizer failed: ${chain
          .map((summarizer, position) => `${summarizer.name}: ${reasons[position]}`)
          .join('; ')}`,
        summarizer: name,
        kind: summarizerFailureOf(lastError).kind,
        cause: lastError,
      });
    },
  };
}

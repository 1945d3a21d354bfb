import type { Summarizer } from '../contracts/index.js';
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
 * as its cause.
 */
export declare function withFallback(primary: Summarizer, ...fallbacks: Summarizer[]): Summarizer;
//# sourceMappingURL=with-fallback.d.ts.map

import type { StructuredSummary } from '../contracts/index.js';
/**
 * Folds `newer` into `older` so that summaries roll instead of stacking: each bullet appears once
 * (compared without case, spacing, speaker prefix or final punctuation). A bullet repeated later
 * moves to its newest position and section, so the newest wording survives when `fitSummary`
 * later drops the oldest bullets; goals are the exception and keep their first position, because
 * the original request is what the goal section is for. Neither input is modified.
 */
export declare function mergeSummaries(
  older: StructuredSummary | undefined,
  newer: StructuredSummary,
): StructuredSummary;
//# sourceMappingURL=merge-summaries.d.ts.map

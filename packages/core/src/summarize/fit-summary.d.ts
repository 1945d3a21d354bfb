import type { StructuredSummary, TokenCounter } from '../contracts/index.js';
/**
 * Trims a summary until its rendering (`renderSummary`) is at most `maxTokens` tokens. Oldest and
 * least important bullets go first: snippets and background, then key facts and TODOs, then the
 * free text is cut, then constraints and decisions, and the goal last (the original goal, its first
 * bullet, is kept longest). The last remaining bullet is shortened rather than dropped when that is
 * enough. Returns the input itself when it already fits; never modifies it.
 *
 * Throws `InvalidArgumentError` for a budget that is not a positive number, and
 * `BudgetExceededError` when not even the bare heading fits.
 */
export declare function fitSummary(
  summary: StructuredSummary,
  maxTokens: number,
  counter: TokenCounter,
): StructuredSummary;
//# sourceMappingURL=fit-summary.d.ts.map

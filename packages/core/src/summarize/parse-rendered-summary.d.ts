import type { StructuredSummary } from '../contracts/index.js';
/** Removes a leading `## Context Summary` heading, so summary text never nests a second one. */
export declare function stripSummaryHeading(text: string): string;
/**
 * Reads a `## Context Summary` block (as `renderSummary` writes it) back into a structured summary.
 * Used when a history carries the rendered summary message but not the structured summary, so that
 * the next summary replaces it instead of nesting it. Text that is not in the rendered shape ends up
 * in `freeText`; `parseRenderedSummary(renderSummary(summary))` gives the summary back.
 */
export declare function parseRenderedSummary(text: string): StructuredSummary;
//# sourceMappingURL=parse-rendered-summary.d.ts.map

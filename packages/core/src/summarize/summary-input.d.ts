import type { Message, StructuredSummary, SummarizeRequest } from '../contracts/index.js';
export interface SummaryInput {
  /** The messages whose content the new summary must cover. */
  messages: Message[];
  /** The summary to build on: the request's, or the one read back from a summary message. */
  previousSummary?: StructuredSummary;
}
/**
 * Checks a request and picks what a summarizer should read. Injected memories and bootstrap files
 * are left out (they are re-added on every call, so summarizing them would only duplicate them).
 * A `## Context Summary` message is not summarized as text, which would nest one summary inside
 * the next: it becomes the previous summary when the request has none.
 */
export declare function prepareSummaryInput(
  request: SummarizeRequest,
  summarizer: string,
): SummaryInput;
//# sourceMappingURL=summary-input.d.ts.map

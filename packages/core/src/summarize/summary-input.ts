import type { Message, StructuredSummary, SummarizeRequest } from '../contracts/index.js';
import { InvalidArgumentError, SummarizerError } from '../errors/index.js';
import { messageText } from '../messages/index.js';
import { parseRenderedSummary } from './parse-rendered-summary.js';

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
export function prepareSummaryInput(request: SummarizeRequest, summarizer: string): SummaryInput {
  const { messages, maxTokens, previousSummary, abortSignal } = request;
  if (!Array.isArray(messages)) {
    throw new InvalidArgumentError({ message: 'messages must be an array', argument: 'messages' });
  }
  if (!(maxTokens > 0) || !Number.isFinite(maxTokens)) {
    throw new InvalidArgumentError({
      message: `maxTokens must be a positive number, got ${maxTokens}`,
      argument: 'maxTokens',
    });
  }
  if (abortSignal?.aborted) {
    throw new SummarizerError({
      message: `Summarizer ${summarizer} was aborted`,
      summarizer,
      kind: 'aborted',
      cause: abortSignal.reason,
    });
  }

  let previous = previousSummary;
  const kept: Message[] = [];
  for (const message of messages) {
    const kind = message.ctxmem?.kind;
    if (kind === 'memory-injection' || kind === 'bootstrap') continue;
    if (kind === 'summary') {
      previous ??= parseRenderedSummary(messageText(message));
      continue;
    }
    kept.push(message);
  }
  return previous ? { messages: kept, previousSummary: previous } : { messages: kept };
}

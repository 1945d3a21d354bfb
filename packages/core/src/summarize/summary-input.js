import { InvalidArgumentError, SummarizerError } from '../errors/index.js';
import { messageText } from '../messages/index.js';
import { parseRenderedSummary } from './parse-rendered-summary.js';
/**
 * Checks a request and picks what a summarizer should read. Injected memories and bootstrap files
 * are left out (they are re-added on every call, so summarizing them would only duplicate them).
 * A `## Context Summary` message is not summarized as text, which would nest one summary inside
 * the next: it becomes the previous summary when the request has none.
 */
export function prepareSummaryInput(request, summarizer) {
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
      cause: abortSignal.reason,
    });
  }
  let previous = previousSummary;
  const kept = [];
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
//# sourceMappingURL=summary-input.js.map

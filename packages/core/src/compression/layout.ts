import type { Message, StructuredSummary, SystemMessage } from '../contracts/index.js';
import { lastUserIndex, leadingSystemCount } from '../messages/index.js';
import { renderSummary } from '../summarize/index.js';

/**
 * The parts of a prompt the strategies work on:
 * `[leading system block (incl. summary)] [history] [current round]`.
 */
export interface PromptLayout {
  /** End of the leading system block; the history starts here. */
  historyStart: number;
  /** Start of the current round: the newest user message (or `messages.length` when there is none), moved back over memory injections placed right before it. */
  currentStart: number;
  /** Index of the newest user message, or -1. */
  newestUser: number;
}

export function promptLayout(messages: readonly Message[]): PromptLayout {
  const historyStart = leadingSystemCount(messages);
  const newestUser = lastUserIndex(messages);
  let currentStart = newestUser === -1 ? messages.length : newestUser;
  while (
    currentStart > historyStart &&
    messages[currentStart - 1]!.ctxmem?.kind === 'memory-injection'
  ) {
    currentStart--;
  }
  return { historyStart: Math.min(historyStart, currentStart), currentStart, newestUser };
}

export function isSummaryMessage(message: Message): boolean {
  return message.ctxmem?.kind === 'summary';
}

/** The rolling summary as a system message (`ctxmem.kind = 'summary'`). */
export function summaryMessage(summary: StructuredSummary): SystemMessage {
  return { role: 'system', content: renderSummary(summary), ctxmem: { kind: 'summary' } };
}

/**
 * Rebuilds the leading block: the leading system messages (without any old summary), then the
 * system messages `hoisted` out of evicted history (kept verbatim, never summarized away), then
 * the summary message last, followed by `rest`. One summary at most, always in the system block.
 */
export function withLeadingBlock(
  leading: readonly Message[],
  hoisted: readonly Message[],
  summary: SystemMessage | undefined,
  rest: readonly Message[],
): Message[] {
  const systems = leading.filter((message) => !isSummaryMessage(message));
  return [...systems, ...hoisted, ...(summary ? [summary] : []), ...rest];
}

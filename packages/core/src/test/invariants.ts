import { isDeepStrictEqual } from 'node:util';
import type { Message, TokenCounter } from '../contracts/index.js';
import {
  checkToolPairing,
  isOpaquePart,
  lastUserMessage,
  leadingSystemCount,
  toolCallsOf,
  toolResultsOf,
} from '../messages/index.js';

export type CompactionInvariant =
  | 'budget'
  | 'system-preserved'
  | 'newest-user-verbatim'
  | 'tool-pairing'
  | 'order'
  | 'summary-placement'
  | 'opaque-parts';

export interface CompactionViolation {
  invariant: CompactionInvariant;
  message: string;
}

export interface CompactionInvariantOptions {
  budgetTokens: number;
  counter: TokenCounter;
}

/** Problems with the order providers accept (OpenAI, Anthropic, Gemini). */
function orderProblems(messages: readonly Message[]): string[] {
  const problems: string[] = [];
  messages.forEach((message, index) => {
    if (message.role !== 'tool') return;
    // A tool message must follow the assistant message that made its calls (through other tool
    // messages of the same block only).
    let callerIndex = index - 1;
    while (callerIndex >= 0 && messages[callerIndex]!.role === 'tool') callerIndex--;
    const caller = messages[callerIndex];
    const callIds = new Set(caller ? toolCallsOf(caller).map((call) => call.toolCallId) : []);
    for (const result of toolResultsOf(message)) {
      if (!callIds.has(result.toolCallId)) {
        problems.push(
          `tool result ${result.toolCallId} at ${index} does not follow the assistant message that called it`,
        );
      }
    }
  });
  messages.forEach((message, index) => {
    // Calls answered in the same message (provider-executed) need no tool block.
    const answeredInline = new Set(toolResultsOf(message).map((result) => result.toolCallId));
    const pending = toolCallsOf(message)
      .map((call) => call.toolCallId)
      .filter((id) => !answeredInline.has(id));
    if (pending.length === 0) return;
    const answered = new Set<string>();
    for (let next = index + 1; next < messages.length && messages[next]!.role === 'tool'; next++) {
      for (const result of toolResultsOf(messages[next]!)) answered.add(result.toolCallId);
    }
    for (const id of pending) {
      if (!answered.has(id)) {
        problems.push(
          `tool call ${id} at ${index} is not answered in the tool block right after it`,
        );
      }
    }
  });
  return problems;
}

/** The opaque parts of `messages` in order, as JSON (their identity is their content). */
function opaqueParts(messages: readonly Message[]): string[] {
  const parts: string[] = [];
  for (const message of messages) {
    if (typeof message.content === 'string') continue;
    for (const part of message.content as Array<{ type: string }>) {
      if (isOpaquePart(part)) parts.push(JSON.stringify(part));
    }
  }
  return parts;
}

function firstNonSystem(messages: readonly Message[]): Message | undefined {
  return messages.find((message) => message.role !== 'system');
}

/**
 * Checks what every compaction must guarantee, for property tests: the output fits the budget;
 * every original system message survives verbatim and in order; the newest user message is
 * byte-identical; every tool call has its result and vice versa; tool blocks follow their calls;
 * the first non-system message is a user message when the input's was; at most one summary,
 * inside the leading system block; opaque parts (signed reasoning, provider compactions, custom
 * parts) come out unchanged and in their order, or not at all. Order checks apply only when the
 * input itself passed them.
 * Returns the violations (empty when all hold).
 */
export function checkCompactionInvariants(
  input: readonly Message[],
  output: readonly Message[],
  { budgetTokens, counter }: CompactionInvariantOptions,
): CompactionViolation[] {
  const violations: CompactionViolation[] = [];
  const add = (invariant: CompactionInvariant, message: string) =>
    violations.push({ invariant, message });

  const tokens = counter.countMessages(output);
  if (tokens > budgetTokens) add('budget', `${tokens} tokens exceed the budget of ${budgetTokens}`);

  const isOriginalSystem = (message: Message) => message.role === 'system' && !message.ctxmem;
  const inputSystems = input.filter(isOriginalSystem);
  const outputSystems = output.filter(isOriginalSystem);
  let cursor = 0;
  for (const system of inputSystems) {
    while (cursor < outputSystems.length && !isDeepStrictEqual(outputSystems[cursor], system)) {
      cursor++;
    }
    if (cursor === outputSystems.length) {
      add(
        'system-preserved',
        `system message ${JSON.stringify(system.content.slice(0, 60))} is missing or changed`,
      );
      break;
    }
    cursor++;
  }

  const newestInput = lastUserMessage(input);
  const newestOutput = lastUserMessage(output);
  if (newestInput && !isDeepStrictEqual(newestInput, newestOutput)) {
    add('newest-user-verbatim', 'the newest user message was changed or removed');
  }

  const inputPairing = new Set(
    checkToolPairing(input).map((problem) => `${problem.kind}:${problem.toolCallId}`),
  );
  for (const problem of checkToolPairing(output)) {
    if (inputPairing.has(`${problem.kind}:${problem.toolCallId}`)) continue;
    add('tool-pairing', `${problem.kind} for ${problem.toolCallId} at ${problem.index}`);
  }

  if (orderProblems(input).length === 0) {
    for (const problem of orderProblems(output)) add('order', problem);
  }
  if (firstNonSystem(input)?.role === 'user') {
    const first = firstNonSystem(output);
    if (first && first.role !== 'user') {
      add('order', `the first non-system message is a ${first.role} message, not a user message`);
    }
  }

  // Every opaque part of the output is one of the input's, unchanged, in the input's order.
  const inputOpaque = opaqueParts(input);
  let position = 0;
  for (const part of opaqueParts(output)) {
    while (position < inputOpaque.length && inputOpaque[position] !== part) position++;
    if (position === inputOpaque.length) {
      add('opaque-parts', `opaque part ${part.slice(0, 80)} was changed, invented or reordered`);
      break;
    }
    position++;
  }

  const summaries = output
    .map((message, index) => ({ message, index }))
    .filter(({ message }) => message.ctxmem?.kind === 'summary');
  if (summaries.length > 1) add('summary-placement', `${summaries.length} summary messages`);
  const leading = leadingSystemCount(output);
  for (const { message, index } of summaries) {
    if (message.role !== 'system' || index >= leading) {
      add('summary-placement', `the summary at ${index} is outside the leading system block`);
    }
  }
  return violations;
}

import type { AssistantContentPart, Message } from '../contracts/index.js';
import { InvalidArgumentError } from '../errors/index.js';
import { toolCallsOf } from '../messages/index.js';
import { requireOptions } from '../validation/index.js';

export interface FoldTaskOptions {
  /** Index of the task's first message (the first step after the user's request). */
  start: number;
  /** Index one past the task's last message. @default messages.length */
  end?: number;
  /** Prefix the result with a one-line note of the tools the task used. @default true */
  noteTools?: boolean;
}

/**
 * Conversation memory is kept apart from task-execution memory: a ReAct loop's thoughts,
 * tool calls and observations serve the task and must not pollute the conversation afterwards.
 * This folds the task's steps (`messages[start, end)`) into ONE assistant message holding the
 * task's final answer, so later turns carry the result, not the scaffolding. Tool calls are removed
 * together with their results, so pairing stays intact. Returns a new array; the input is not
 * modified. Record the originals in a `HistoryStore` first if they must stay recallable.
 */
export function foldTaskMessages(
  messages: readonly Message[],
  options: FoldTaskOptions,
): Message[] {
  const {
    start,
    end = messages.length,
    noteTools = true,
  } = requireOptions(options, 'foldTaskMessages', {
    start: {
      expected: "the index of the task's first message",
      type: 'number',
    },
  });
  if (
    !Number.isInteger(start) ||
    !Number.isInteger(end) ||
    start < 0 ||
    end > messages.length ||
    start > end
  ) {
    throw new InvalidArgumentError({
      message: `Invalid task range [${start}, ${end}) for ${messages.length} messages.`,
      argument: 'start',
    });
  }
  const steps = messages.slice(start, end);
  if (steps.some((message) => message.role === 'user' && message.ctxmem === undefined)) {
    throw new InvalidArgumentError({
      message: 'A task range must not contain user messages: fold each task separately.',
      argument: 'start',
    });
  }
  const toolNames = [
    ...new Set(steps.flatMap((message) => toolCallsOf(message).map((call) => call.toolName))),
  ];
  let answer = '';
  for (let index = steps.length - 1; index >= 0 && answer === ''; index--) {
    const message = steps[index]!;
    if (message.role !== 'assistant') continue;
    answer =
      typeof message.content === 'string'
        ? message.content
        : message.content
            .filter(
              (part): part is Extract<AssistantContentPart, { type: 'text' }> =>
                part.type === 'text',
            )
            .map((part) => part.text)
            .join('\n');
  }
  if (steps.length === 0) return [...messages];
  const note =
    noteTools && toolNames.length > 0
      ? `[Task steps folded; tools used: ${toolNames.join(', ')}]`
      : '';
  const text = [note, answer.trim()].filter((piece) => piece !== '').join('\n\n');
  const folded: Message[] = text === '' ? [] : [{ role: 'assistant', content: text }];
  return [...messages.slice(0, start), ...folded, ...messages.slice(end)];
}

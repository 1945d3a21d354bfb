import type {
  Message,
  ToolCallPart,
  ToolResultOutput,
  ToolResultPart,
  UserMessage,
} from '../contracts/index.js';

/** True for messages ctxmem created (summary, injected memories, records, previews). */
export function isCtxmemMessage(message: Message): boolean {
  return message.ctxmem !== undefined;
}

/** The tool calls an assistant message makes (empty for every other message). */
export function toolCallsOf(message: Message): ToolCallPart[] {
  if (message.role !== 'assistant' || typeof message.content === 'string') return [];
  return message.content.filter((part): part is ToolCallPart => part.type === 'tool-call');
}

/** The tool results a message carries (tool messages, and provider-executed results in assistant messages). */
export function toolResultsOf(message: Message): ToolResultPart[] {
  if (message.role === 'system' || message.role === 'user' || typeof message.content === 'string') {
    return [];
  }
  return (message.content as Array<{ type: string }>).filter(
    (part): part is ToolResultPart => part.type === 'tool-result',
  );
}

/** Plain text of a tool result output, as a model would read it. */
export function toolOutputText(output: ToolResultOutput): string {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return output.value;
    case 'json':
    case 'error-json':
      return JSON.stringify(output.value) ?? 'null';
    case 'execution-denied':
      return output.reason ?? 'execution denied';
    case 'content':
      return output.value
        .map((item) =>
          item.type === 'text' && typeof item.text === 'string' ? item.text : `[${item.type}]`,
        )
        .join('\n');
  }
}

/**
 * The readable text of a message: text and reasoning, tool calls as `name(arguments)`, tool
 * results as text, `[image]` / `[file name]` for binary parts (never their base64).
 */
export function messageText(message: Message): string {
  return readableText(message, false);
}

/**
 * `messageText` with reasoning, tool calls and tool results marked as such
 * (`[tool result search] …`), for showing a message to a person.
 */
export function labelledMessageText(message: Message): string {
  return readableText(message, true);
}

function readableText(message: Message, labelled: boolean): string {
  if (typeof message.content === 'string') return message.content;
  const pieces: string[] = [];
  for (const part of message.content) {
    switch (part.type) {
      case 'text':
        pieces.push(part.text);
        break;
      case 'reasoning':
        pieces.push(labelled ? `[reasoning] ${part.text}` : part.text);
        break;
      case 'image':
        pieces.push('[image]');
        break;
      case 'file':
        pieces.push(`[file${part.filename ? ` ${part.filename}` : ''} ${part.mediaType}]`);
        break;
      case 'tool-call':
        pieces.push(
          `${labelled ? '[tool call] ' : ''}${part.toolName}(${JSON.stringify(part.input) ?? ''})`,
        );
        break;
      case 'tool-result':
        pieces.push(
          `${labelled ? `[tool result ${part.toolName}] ` : ''}${toolOutputText(part.output)}`,
        );
        break;
      case 'tool-approval-request':
        pieces.push(`[approval requested for ${part.toolCallId}]`);
        break;
      case 'tool-approval-response':
        pieces.push(
          `[approval ${part.approved ? 'granted' : 'denied'}${part.reason ? `: ${part.reason}` : ''}]`,
        );
        break;
    }
  }
  return pieces.join('\n');
}

/** Index of the newest user message that ctxmem did not create, or -1. */
export function lastUserIndex(messages: readonly Message[]): number {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (message.role === 'user' && !isCtxmemMessage(message)) return index;
  }
  return -1;
}

/** The newest user message that ctxmem did not create. */
export function lastUserMessage(messages: readonly Message[]): UserMessage | undefined {
  const index = lastUserIndex(messages);
  return index === -1 ? undefined : (messages[index] as UserMessage);
}

/** Number of leading system messages (the system instructions block). */
export function leadingSystemCount(messages: readonly Message[]): number {
  let count = 0;
  while (count < messages.length && messages[count]!.role === 'system') count++;
  return count;
}

export interface Round {
  /** Index of the round's first message (a user message, or 0 for messages before the first user message). */
  start: number;
  /** Index one past the round's last message. */
  end: number;
}

/**
 * Splits messages into rounds: each user message starts a round that runs until the next user
 * message. Messages before the first user message form a round of their own. Ctxmem-created
 * user messages do not start a round.
 */
export function splitRounds(messages: readonly Message[], from = 0, to = messages.length): Round[] {
  const rounds: Round[] = [];
  let start = from;
  for (let index = from; index < to; index++) {
    const message = messages[index]!;
    if (message.role === 'user' && !isCtxmemMessage(message) && index > start) {
      rounds.push({ start, end: index });
      start = index;
    }
  }
  if (start < to) rounds.push({ start, end: to });
  return rounds;
}

/**
 * Whether `index` is a safe place to cut the message list in two: no tool call before it has its
 * result at or after it.
 */
export function isPairSafeCut(messages: readonly Message[], index: number): boolean {
  const open = new Set<string>();
  for (let position = 0; position < index; position++) {
    const message = messages[position]!;
    for (const call of toolCallsOf(message)) open.add(call.toolCallId);
    for (const result of toolResultsOf(message)) open.delete(result.toolCallId);
  }
  if (open.size === 0) return true;
  // Calls whose results never arrive do not pin the cut.
  for (let position = index; position < messages.length; position++) {
    for (const result of toolResultsOf(messages[position]!)) {
      if (open.has(result.toolCallId)) return false;
    }
  }
  return true;
}

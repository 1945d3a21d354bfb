import type {
  FilePart,
  ImagePart,
  Message,
  ToolApprovalRequestPart,
  ToolApprovalResponsePart,
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

/** What a denied tool call reads as when the denial gives no reason, in provider messages. */
export const DENIED_TOOL_CALL_TEXT = 'Tool execution denied.';

/** How `mapToolOutput` writes each kind of tool result output. */
export interface MapToolOutputOptions<Part> {
  /** One item of a `content` output, as the target format's part. */
  contentPart: (item: Extract<ToolResultOutput, { type: 'content' }>['value'][number]) => Part;
  /**
   * The text of a denied call that gives no reason.
   * @default DENIED_TOOL_CALL_TEXT
   */
  deniedText?: string;
  /**
   * JSON outputs as text.
   * @default `JSON.stringify`, `null` for what has no JSON
   */
  stringify?: (value: unknown) => string;
}

/**
 * A tool result output in the shape provider messages carry it: text for text, JSON and denied
 * outputs, and a part per item of a `content` output. Every converter reads outputs this way, so
 * only the parts differ between formats.
 */
export function mapToolOutput<Part>(
  output: ToolResultOutput,
  {
    contentPart,
    deniedText = DENIED_TOOL_CALL_TEXT,
    stringify = (value) => JSON.stringify(value) ?? 'null',
  }: MapToolOutputOptions<Part>,
): string | Part[] {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return output.value;
    case 'json':
    case 'error-json':
      return stringify(output.value);
    case 'execution-denied':
      return output.reason ?? deniedText;
    case 'content':
      return output.value.map(contentPart);
  }
}

/** Plain text of a tool result output, as a model would read it. */
export function toolOutputText(output: ToolResultOutput): string {
  const mapped = mapToolOutput(output, {
    contentPart: (item) =>
      item.type === 'text' && typeof item.text === 'string' ? item.text : `[${item.type}]`,
    deniedText: 'execution denied',
  });
  return typeof mapped === 'string' ? mapped : mapped.join('\n');
}

/** An image or file part as text: `[image]`, `[file report.pdf application/pdf]` (never its data). */
export function mediaPartText(part: ImagePart | FilePart): string {
  if (part.type === 'image') return '[image]';
  return `[file${part.filename ? ` ${part.filename}` : ''} ${part.mediaType}]`;
}

/** A tool approval request or response as one line of text. */
export function approvalText(part: ToolApprovalRequestPart | ToolApprovalResponsePart): string {
  if (part.type === 'tool-approval-request') return `[approval requested for ${part.toolCallId}]`;
  return `[approval ${part.approved ? 'granted' : 'denied'}${part.reason ? `: ${part.reason}` : ''}]`;
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
      case 'file':
        pieces.push(mediaPartText(part));
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
      case 'tool-approval-response':
        pieces.push(approvalText(part));
        break;
      case 'custom':
        // Provider data, not words: shown to a person by its kind, never read as text.
        if (labelled) pieces.push(`[${part.kind}]`);
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

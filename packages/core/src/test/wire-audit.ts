/**
 * What the end-to-end wire tests of every adapter check in the requests a local OpenAI-compatible
 * server received: which are ctxmem's summary requests, what a provider would reject, and the
 * messages to count. One audit, so that every entry point is held to the same rules.
 */
import type { Message } from '../contracts/index.js';
import { fromOpenAIChat, fromOpenAIResponses, type OpenAIChatMessage } from '../messages/index.js';
import { SUMMARY_SYSTEM_PROMPT } from '../summarize/index.js';
import { fillerText } from './filler-text.js';
import type { OpenAIServerReply, OpenAIServerRequest } from './openai-server/index.js';

type Item = Record<string, unknown>;

/** True for a request of ctxmem's model summarizer (its system prompt is in the body). */
export function isSummaryRequest(request: OpenAIServerRequest): boolean {
  return JSON.stringify(request.body).includes(SUMMARY_SYSTEM_PROMPT.slice(0, 60));
}

/** The request's conversation: Chat Completions `messages` or Responses `input` items. */
function itemsOf(request: OpenAIServerRequest): Item[] {
  const items = request.endpoint === 'responses' ? request.body.input : request.body.messages;
  return Array.isArray(items) ? (items as Item[]) : [];
}

/**
 * The reply of a scripted tool-using agent: a call of `toolName` until the current user turn has
 * `toolSteps` tool results, then a text answer.
 */
export function agentReply(
  request: OpenAIServerRequest,
  { toolSteps = 2, toolName = 'lookup' }: { toolSteps?: number; toolName?: string } = {},
): OpenAIServerReply {
  const items = itemsOf(request);
  let lastUser = items.length - 1;
  while (lastUser >= 0 && items[lastUser]!.role !== 'user') lastUser--;
  const results = items
    .slice(lastUser + 1)
    .filter((item) => item.role === 'tool' || item.type === 'function_call_output').length;
  if (results < toolSteps) {
    return { toolCalls: [{ name: toolName, arguments: { query: `q${request.index}` } }] };
  }
  return { text: `Answer ${request.index}: ${fillerText(request.index, 10)}` };
}

function isSystem(item: Item): boolean {
  return item.role === 'system' || item.role === 'developer';
}

export interface WireProblemsOptions {
  /**
   * Where system messages may be: `'first'`, only the first message (what LangChain's Anthropic
   * and Google integrations accept); `'leading'`, any in the block before the conversation (what
   * the AI SDK's providers merge into one).
   * @default 'first'
   */
  systemMessages?: 'first' | 'leading';
}

/** The system messages out of place, by the rule of `systemMessages`. */
function systemProblems(items: readonly Item[], systemMessages: 'first' | 'leading'): string[] {
  const problems: string[] = [];
  let leading = true;
  items.forEach((item, index) => {
    if (!isSystem(item)) {
      leading = false;
      return;
    }
    if (index > 0 && (systemMessages === 'first' || !leading)) {
      problems.push(`system message at ${index}`);
    }
  });
  return problems;
}

/** What a provider would reject in a Chat Completions conversation. */
function chatProblems(messages: readonly Item[]): string[] {
  const problems: string[] = [];
  messages.forEach((message, index) => {
    if (message.role === 'tool') {
      let caller = index - 1;
      while (caller >= 0 && messages[caller]!.role === 'tool') caller--;
      const calls = (messages[caller]?.tool_calls as Array<{ id: string }> | undefined) ?? [];
      if (
        messages[caller]?.role !== 'assistant' ||
        !calls.some((call) => call.id === message.tool_call_id)
      ) {
        problems.push(`tool message ${index} does not follow the assistant message that called it`);
      }
    }
    for (const call of (message.tool_calls as Array<{ id: string }> | undefined) ?? []) {
      let answered = false;
      for (
        let next = index + 1;
        next < messages.length && messages[next]!.role === 'tool';
        next++
      ) {
        if (messages[next]!.tool_call_id === call.id) answered = true;
      }
      if (!answered)
        problems.push(`tool call ${call.id} at ${index} is not answered right after it`);
    }
  });
  const first = messages.find((message) => !isSystem(message));
  if (first && first.role !== 'user') {
    problems.push(`the first message is a ${String(first.role)} message`);
  }
  return problems;
}

/** What a provider would reject in a Responses input: every function call answered once, after it. */
function responsesProblems(input: readonly Item[]): string[] {
  const problems: string[] = [];
  const open = new Set<string>();
  for (const item of input) {
    if (item.type === 'function_call') open.add(item.call_id as string);
    else if (item.type === 'function_call_output' && !open.delete(item.call_id as string)) {
      problems.push(`output ${String(item.call_id)} has no call before it`);
    }
  }
  for (const id of open) problems.push(`call ${id} has no output`);
  return problems;
}

/**
 * What a provider would reject in a request: a system message out of place (see
 * `systemMessages`), a tool result that does not follow its call, a call without its result, a
 * chat that does not start with the user. Empty when the request is valid.
 */
export function wireProblems(
  request: OpenAIServerRequest,
  { systemMessages = 'first' }: WireProblemsOptions = {},
): string[] {
  const items = itemsOf(request);
  return [
    ...systemProblems(items, systemMessages),
    ...(request.endpoint === 'responses' ? responsesProblems(items) : chatProblems(items)),
  ];
}

/** The request's conversation as core messages, to count what was sent with core's counter. */
export function wireMessages(request: OpenAIServerRequest): Message[] {
  if (request.endpoint === 'responses') {
    return fromOpenAIResponses(request.body as { instructions?: unknown; input: unknown });
  }
  return fromOpenAIChat(request.body.messages as OpenAIChatMessage[]);
}

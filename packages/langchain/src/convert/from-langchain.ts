import type {
  AssistantContentPart,
  AssistantMessage,
  CtxmemMessageMetadata,
  JsonValue,
  Message,
  SystemMessage,
  ToolCallPart,
  ToolMessage,
  ToolResultOutput,
  UserMessage,
} from '@ctxmem/core';
import { InvalidMessageError } from '@ctxmem/core';
import { checkJsonValue, readCtxmemMetadata } from '@ctxmem/core/adapter-kit';
import {
  BaseMessage,
  type BaseMessageLike,
  coerceMessageLikeToMessage,
} from '@langchain/core/messages';
import {
  assistantPartFromBlock,
  describeValue,
  fail,
  requireBlock,
  toolItemFromBlock,
  userPartFromBlock,
} from './blocks.js';
import {
  CTXMEM_KWARGS_KEY,
  isPlainObject,
  isStorableData,
  type LangChainMessageMarker,
  type LangChainPartMarker,
  nonEmpty,
  withMarker,
} from './marker.js';

/** The fields of a LangChain message the converters read (any message class has them). */
interface LangChainFields {
  type?: string;
  role?: unknown;
  id?: unknown;
  name?: unknown;
  content?: unknown;
  additional_kwargs?: Record<string, unknown>;
  response_metadata?: Record<string, unknown>;
  tool_calls?: unknown;
  invalid_tool_calls?: unknown;
  usage_metadata?: unknown;
  tool_call_id?: unknown;
  status?: unknown;
  artifact?: unknown;
  metadata?: unknown;
}

/** The fields every role shares: id, name, ctxmem metadata, kwargs and response metadata. */
function commonFields(
  message: LangChainFields,
  path: string,
): {
  base: { id?: string; name?: string; ctxmem?: CtxmemMessageMetadata };
  marker: LangChainMessageMarker;
} {
  if (message.id !== undefined && message.id !== null && typeof message.id !== 'string') {
    fail(`${path}.id`, `expected a string, got ${describeValue(message.id)}`);
  }
  if (message.name !== undefined && message.name !== null && typeof message.name !== 'string') {
    fail(`${path}.name`, `expected a string, got ${describeValue(message.name)}`);
  }
  const kwargs = isPlainObject(message.additional_kwargs) ? message.additional_kwargs : {};
  const ctxmem = readCtxmemMetadata(kwargs[CTXMEM_KWARGS_KEY]);
  const { [CTXMEM_KWARGS_KEY]: _ctxmem, ...otherKwargs } = kwargs;
  const rest = ctxmem ? otherKwargs : kwargs;
  return {
    base: {
      ...(typeof message.id === 'string' ? { id: message.id } : {}),
      ...(typeof message.name === 'string' ? { name: message.name } : {}),
      ...(ctxmem ? { ctxmem } : {}),
    },
    marker: {
      additionalKwargs: nonEmpty(rest),
      responseMetadata: nonEmpty(
        isPlainObject(message.response_metadata) ? message.response_metadata : undefined,
      ),
    },
  };
}

/**
 * A message's content as every role reads it: its string, or its blocks each converted by
 * `fromBlock` (given the block's path); anything else fails at `<path>.content`.
 */
function readContent<Part>(
  message: LangChainFields,
  path: string,
  fromBlock: (block: unknown, blockPath: string) => Part,
): string | Part[] {
  const { content } = message;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) {
    fail(`${path}.content`, `expected a string or blocks, got ${describeValue(content)}`);
  }
  return content.map((block, index) => fromBlock(block, `${path}.content[${index}]`));
}

function systemFromLangChain(message: LangChainFields, path: string): SystemMessage {
  const { base, marker } = commonFields(message, path);
  const read = readContent(message, path, requireBlock);
  if (typeof read !== 'string') marker.systemBlocks = message.content as JsonValue[];
  const content =
    typeof read === 'string'
      ? read
      : read
          .flatMap((block) =>
            block.type === 'text' && typeof block.text === 'string' ? [block.text] : [],
          )
          .join('\n');
  return { role: 'system', content, ...base, ...withMarker(marker) };
}

function userFromLangChain(
  message: LangChainFields,
  path: string,
  marker: LangChainMessageMarker,
  base: { id?: string; name?: string; ctxmem?: CtxmemMessageMetadata },
): UserMessage {
  const content = readContent(message, path, userPartFromBlock);
  return { role: 'user', content, ...base, ...withMarker(marker) };
}

function toolCallFromLangChain(
  value: unknown,
  path: string,
  toolNames: Map<string, string>,
): ToolCallPart {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    fail(path, `expected a tool call object, got ${describeValue(value)}`);
  }
  const { id, name, args, ...rest } = value as Record<string, unknown>;
  if (typeof name !== 'string' || name.length === 0) {
    fail(`${path}.name`, `expected a tool name, got ${describeValue(name)}`);
  }
  if (id !== undefined && id !== null && typeof id !== 'string') {
    fail(`${path}.id`, `expected a string, got ${describeValue(id)}`);
  }
  const marker: LangChainPartMarker = { call: nonEmpty(rest) };
  if (typeof id !== 'string') marker.idAbsent = true;
  const toolCallId = typeof id === 'string' ? id : '';
  if (toolCallId) toolNames.set(toolCallId, name);
  return { type: 'tool-call', toolCallId, toolName: name, input: args, ...withMarker(marker) };
}

function assistantFromLangChain(
  message: LangChainFields,
  path: string,
  toolNames: Map<string, string>,
): AssistantMessage {
  const { base, marker } = commonFields(message, path);
  if (message.usage_metadata !== undefined && message.usage_metadata !== null) {
    marker.usageMetadata = message.usage_metadata as { [key: string]: JsonValue };
  }
  if (Array.isArray(message.invalid_tool_calls) && message.invalid_tool_calls.length > 0) {
    marker.invalidToolCalls = message.invalid_tool_calls as JsonValue[];
  }
  if (message.tool_calls !== undefined && !Array.isArray(message.tool_calls)) {
    fail(`${path}.tool_calls`, `expected an array, got ${describeValue(message.tool_calls)}`);
  }
  const calls = (message.tool_calls ?? []).map((call, index) =>
    toolCallFromLangChain(call, `${path}.tool_calls[${index}]`, toolNames),
  );
  const read = readContent(message, path, assistantPartFromBlock);
  let content: AssistantMessage['content'];
  if (typeof read !== 'string') {
    if (read.length === 0) marker.emptyBlocks = true;
    content = [...read, ...calls];
  } else if (calls.length === 0) {
    content = read;
  } else {
    const text: AssistantContentPart[] = read ? [{ type: 'text', text: read }] : [];
    content = [...text, ...calls];
    marker.stringContent = true;
  }
  return { role: 'assistant', content, ...base, ...withMarker(marker) };
}

function toolFromLangChain(
  message: LangChainFields,
  path: string,
  toolNames: Map<string, string>,
): ToolMessage {
  const { base, marker } = commonFields(message, path);
  if (typeof message.tool_call_id !== 'string' || message.tool_call_id.length === 0) {
    fail(
      `${path}.tool_call_id`,
      `expected a tool call id, got ${describeValue(message.tool_call_id)}`,
    );
  }
  const toolCallId = message.tool_call_id;
  if (message.status === 'success' || message.status === 'error') marker.status = message.status;
  if (message.artifact !== undefined && isStorableData(message.artifact)) {
    marker.artifact = message.artifact as JsonValue;
  }
  if (isPlainObject(message.metadata)) marker.metadata = nonEmpty(message.metadata);
  if (base.name === undefined) marker.nameAbsent = true;
  const failed = message.status === 'error';
  const read = readContent(message, path, toolItemFromBlock);
  const output: ToolResultOutput =
    typeof read === 'string'
      ? { type: failed ? 'error-text' : 'text', value: read }
      : { type: 'content', value: read };
  return {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId,
        toolName: base.name ?? toolNames.get(toolCallId) ?? '',
        output,
      },
    ],
    ...base,
    ...withMarker(marker),
  };
}

/**
 * The fields a conversion carries into the core message (content blocks, kwargs, metadata, tool
 * calls), where they travel into stores and prompts. `artifact` is not among them: it is only
 * carried when it is plain data (see `isStorableData`).
 */
const CARRIED_FIELDS = [
  'content',
  'additional_kwargs',
  'response_metadata',
  'usage_metadata',
  'tool_calls',
  'invalid_tool_calls',
  'metadata',
] as const;

/**
 * Checks the carried fields as data, where the LangChain paths are known: a cycle, a BigInt, a
 * function or a getter that throws fails here, naming its path, instead of where the prompt is
 * sent. Content blocks may hold bytes.
 */
function checkCarriedFields(message: LangChainFields, path: string): void {
  for (const field of CARRIED_FIELDS) {
    const value = message[field];
    if (value !== undefined) checkJsonValue(value, `${path}.${field}`, { binaryData: true });
  }
}

/** The LangChain type of a message: `human`, `ai`, `system`, `tool`, `generic`, … */
function typeOf(message: LangChainFields & { _getType?: () => string }): unknown {
  if (typeof message.type === 'string') return message.type;
  return typeof message._getType === 'function' ? message._getType() : undefined;
}

/**
 * Converts one LangChain message. `toolNames` maps tool call ids to names; AI messages add to it,
 * and tool messages without a `name` take theirs from it.
 */
export function fromLangChainMessage(
  input: BaseMessage | BaseMessageLike,
  path = 'message',
  toolNames: Map<string, string> = new Map(),
): Message {
  try {
    return convertMessage(input, path, toolNames);
  } catch (error) {
    if (InvalidMessageError.isInstance(error)) throw error;
    // A getter or proxy trap of the message itself that throws while it is read.
    throw new InvalidMessageError({
      message: `${path}: reading it threw (${error instanceof Error ? `${error.name}: ${error.message}` : String(error)})`,
      path,
      cause: error,
    });
  }
}

function convertMessage(
  input: BaseMessage | BaseMessageLike,
  path: string,
  toolNames: Map<string, string>,
): Message {
  let message: LangChainFields;
  if (input === null || input === undefined) {
    fail(path, `expected a message, got ${describeValue(input)}`);
  }
  if (BaseMessage.isInstance(input)) {
    message = input as unknown as LangChainFields;
  } else {
    try {
      message = coerceMessageLikeToMessage(input as BaseMessageLike) as unknown as LangChainFields;
    } catch (error) {
      throw fail(path, `not a LangChain message (${(error as Error).message})`);
    }
  }
  const type = typeOf(message);
  checkCarriedFields(message, path);
  switch (type) {
    case 'system':
      return systemFromLangChain(message, path);
    case 'human': {
      const { base, marker } = commonFields(message, path);
      return userFromLangChain(message, path, marker, base);
    }
    case 'ai':
      return assistantFromLangChain(message, path, toolNames);
    case 'tool':
      return toolFromLangChain(message, path, toolNames);
    case 'generic': {
      const role = message.role;
      if (typeof role !== 'string')
        fail(`${path}.role`, `expected a role string, got ${describeValue(role)}`);
      // A ChatMessage with a custom role reads as a user message and keeps its role.
      const { base, marker } = commonFields(message, path);
      return userFromLangChain(message, path, { ...marker, role }, base);
    }
    case 'function':
      return fail(
        `${path}.type`,
        "the deprecated 'function' message is not supported; use tool messages",
      );
    case 'remove':
      return fail(
        `${path}.type`,
        'a RemoveMessage is a state update, not a message of the history',
      );
    default:
      return fail(
        `${path}.type`,
        typeof type === 'string'
          ? `unknown message type ${JSON.stringify(type)}`
          : 'not a LangChain message',
      );
  }
}

/**
 * Converts LangChain messages (`HumanMessage`, `AIMessage` with `tool_calls`, `ToolMessage`,
 * `SystemMessage`, `ChatMessage`, chunks, or message-like values) to ctxmem messages.
 * `toLangChainMessages(fromLangChainMessages(x))` gives back messages equal to `x` in every field
 * providers use: ids, names, content and its blocks, tool calls and their ids, tool call ids,
 * status, artifacts that are plain data, `additional_kwargs`, `response_metadata` and
 * `usage_metadata` (chunks come back as full messages). What has no place in the core model is kept
 * in `providerOptions.langchain` (see `LangChainMessageMarker`). Throws `InvalidMessageError` with
 * the path of the first malformed field. The input is not modified.
 */
export function fromLangChainMessages(
  messages: ReadonlyArray<BaseMessage | BaseMessageLike>,
): Message[] {
  if (!Array.isArray(messages)) {
    fail('messages', `expected an array of messages, got ${describeValue(messages)}`);
  }
  const toolNames = new Map<string, string>();
  // A loop, not `map`: `map` skips the holes of a sparse array and would keep them.
  const converted: Message[] = new Array(messages.length);
  for (let index = 0; index < messages.length; index++) {
    requireEntry(messages, index);
    converted[index] = fromLangChainMessage(messages[index]!, `messages[${index}]`, toolNames);
  }
  return converted;
}

/** Fails for a hole of a sparse array of messages (`[a, , b]`), naming its index. */
export function requireEntry(messages: ReadonlyArray<unknown>, index: number): void {
  if (!(index in messages)) {
    fail(`messages[${index}]`, 'expected a message, got an empty slot (the array has a hole)');
  }
}

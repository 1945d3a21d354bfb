import type {
  AssistantMessage,
  SystemMessage as CoreSystemMessage,
  ToolMessage as CoreToolMessage,
  Message,
  TextPart,
  ToolCallPart,
  ToolResultPart,
  UserMessage,
} from '@ctxmem/core';
import { mapToolOutput } from '@ctxmem/core/adapter-kit';
import {
  AIMessage,
  type BaseMessage,
  ChatMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages';
import {
  type Block,
  blockFromCustomPart,
  blockFromMediaPart,
  blockFromReasoningPart,
  blockFromTextPart,
} from './blocks.js';
import {
  CTXMEM_KWARGS_KEY,
  isPlainObject,
  type LangChainMessageMarker,
  type LangChainPartMarker,
  markerOf,
} from './marker.js';

type ToolCall = NonNullable<AIMessage['tool_calls']>[number];

/** The fields every LangChain message takes: id, name, kwargs (with ctxmem's metadata) and response metadata. */
function commonFields(message: Message, marker: LangChainMessageMarker) {
  const kwargs: Record<string, unknown> = isPlainObject(marker.additionalKwargs)
    ? { ...marker.additionalKwargs }
    : {};
  if (message.ctxmem) kwargs[CTXMEM_KWARGS_KEY] = { ...message.ctxmem };
  return {
    ...(message.id === undefined ? {} : { id: message.id }),
    ...(message.name === undefined ? {} : { name: message.name }),
    additional_kwargs: kwargs,
    response_metadata: isPlainObject(marker.responseMetadata) ? { ...marker.responseMetadata } : {},
  };
}

function joinedSystemText(blocks: readonly unknown[]): string | undefined {
  const texts: string[] = [];
  for (const block of blocks) {
    if (!isPlainObject(block) || typeof block.type !== 'string') return undefined;
    if (block.type === 'text' && typeof block.text === 'string') texts.push(block.text);
  }
  return texts.join('\n');
}

function systemToLangChain(message: CoreSystemMessage): SystemMessage {
  const marker = markerOf<LangChainMessageMarker>(message);
  const blocks = marker.systemBlocks;
  // The blocks come back only while their text is still the message's text.
  const content =
    Array.isArray(blocks) && joinedSystemText(blocks) === message.content
      ? (blocks as Block[])
      : message.content;
  return new SystemMessage({ content, ...commonFields(message, marker) });
}

function userToLangChain(message: UserMessage): BaseMessage {
  const marker = markerOf<LangChainMessageMarker>(message);
  const content =
    typeof message.content === 'string'
      ? message.content
      : message.content.map((part): Block => {
          const partMarker = markerOf<LangChainPartMarker>(part);
          return part.type === 'text'
            ? blockFromTextPart(part, partMarker)
            : blockFromMediaPart(part, partMarker);
        });
  const fields = { content, ...commonFields(message, marker) };
  if (typeof marker.role === 'string') return new ChatMessage({ ...fields, role: marker.role });
  return new HumanMessage(fields);
}

/** Tool call arguments must be an object in LangChain: JSON text is parsed, anything else wrapped. */
function argsOf(input: unknown): Record<string, unknown> {
  if (isPlainObject(input)) return input;
  if (typeof input === 'string') {
    try {
      const parsed: unknown = JSON.parse(input);
      if (isPlainObject(parsed)) return parsed;
    } catch {
      // Not JSON: wrapped below.
    }
  }
  return { input };
}

function toolCallToLangChain(part: ToolCallPart): ToolCall {
  const marker = markerOf<LangChainPartMarker>(part);
  const extra = isPlainObject(marker.call) ? marker.call : {};
  const id = marker.idAbsent === true && part.toolCallId === '' ? {} : { id: part.toolCallId };
  return { ...extra, ...id, name: part.toolName, args: argsOf(part.input) } as ToolCall;
}

function assistantToLangChain(message: AssistantMessage): AIMessage {
  const marker = markerOf<LangChainMessageMarker>(message);
  const extra = {
    ...(Array.isArray(marker.invalidToolCalls)
      ? { invalid_tool_calls: marker.invalidToolCalls as never }
      : {}),
    ...(isPlainObject(marker.usageMetadata)
      ? { usage_metadata: marker.usageMetadata as never }
      : {}),
  };
  if (typeof message.content === 'string') {
    return new AIMessage({ content: message.content, ...commonFields(message, marker), ...extra });
  }
  const blocks: Block[] = [];
  const texts: string[] = [];
  let onlyText = true;
  const toolCalls: ToolCall[] = [];
  for (const part of message.content) {
    const partMarker = markerOf<LangChainPartMarker>(part);
    switch (part.type) {
      case 'text': {
        const block = blockFromTextPart(part, partMarker);
        blocks.push(block);
        if (block.type === 'text' && Object.keys(block).length === 2) texts.push(part.text);
        else onlyText = false;
        break;
      }
      case 'reasoning':
        blocks.push(blockFromReasoningPart(part, partMarker));
        onlyText = false;
        break;
      case 'file':
        blocks.push(blockFromMediaPart(part, partMarker));
        onlyText = false;
        break;
      case 'tool-call':
        // Calls the provider executed itself have no LangChain form to send back.
        if (part.providerExecuted !== true) toolCalls.push(toolCallToLangChain(part));
        break;
      case 'custom': {
        // A LangChain block kept opaque goes back verbatim; custom parts of other origins (an
        // AI SDK stream's `anthropic.message_start`) have no LangChain block.
        const block = blockFromCustomPart(partMarker);
        if (block) {
          blocks.push(block);
          onlyText = false;
        }
        break;
      }
      default:
        // Provider-executed results and approval requests have no LangChain message form.
        break;
    }
  }
  let content: string | Block[];
  if (marker.stringContent === true && onlyText) content = texts.join('');
  else if (blocks.length === 0) content = marker.emptyBlocks === true ? [] : '';
  else content = blocks;
  return new AIMessage({
    content,
    tool_calls: toolCalls,
    ...commonFields(message, marker),
    ...extra,
  });
}

function toolOutputContent(part: ToolResultPart): string | Block[] {
  return mapToolOutput(part.output, {
    contentPart: (item): Block => {
      if (item.type === 'text' && typeof item.text === 'string') {
        return blockFromTextPart(item as TextPart, markerOf<LangChainPartMarker>(item as TextPart));
      }
      if (
        item.type === 'media' &&
        typeof item.data === 'string' &&
        typeof item.mediaType === 'string'
      ) {
        return blockFromMediaPart({ type: 'file', data: item.data, mediaType: item.mediaType }, {});
      }
      return item as Block;
    },
  });
}

function isFailure(part: ToolResultPart): boolean {
  const type = part.output.type;
  return type === 'error-text' || type === 'error-json' || type === 'execution-denied';
}

function toolToLangChain(message: CoreToolMessage): ToolMessage[] {
  const marker = markerOf<LangChainMessageMarker>(message);
  const results = message.content.filter(
    (part): part is ToolResultPart => part.type === 'tool-result',
  );
  return results.map((part, index) => {
    const common = commonFields(message, marker);
    // LangChain has one tool message per result; the first keeps the message id.
    if (index > 0) delete (common as { id?: string }).id;
    const name =
      message.name ??
      (marker.nameAbsent === true || part.toolName === '' ? undefined : part.toolName);
    const status = marker.status ?? (isFailure(part) ? 'error' : undefined);
    return new ToolMessage({
      content: toolOutputContent(part),
      tool_call_id: part.toolCallId,
      ...common,
      ...(name === undefined ? {} : { name }),
      ...(status === undefined ? {} : { status }),
      ...(marker.artifact === undefined ? {} : { artifact: marker.artifact }),
      ...(isPlainObject(marker.metadata) ? { metadata: { ...marker.metadata } } : {}),
    });
  });
}

/** Converts one ctxmem message; a tool message with several results becomes several messages. */
export function toLangChainMessage(message: Message): BaseMessage[] {
  switch (message.role) {
    case 'system':
      return [systemToLangChain(message)];
    case 'user':
      return [userToLangChain(message)];
    case 'assistant':
      return [assistantToLangChain(message)];
    case 'tool':
      return toolToLangChain(message);
  }
}

/**
 * Converts ctxmem messages to LangChain messages. Markers left by `fromLangChainMessages` restore
 * the original shapes (content blocks, kwargs, metadata, status, artifacts); messages ctxmem
 * created carry their kind in `additional_kwargs.ctxmem`, which provider integrations do not send
 * and `fromLangChainMessages` reads back. Tool results become one `ToolMessage` each.
 */
export function toLangChainMessages(messages: readonly Message[]): BaseMessage[] {
  return messages.flatMap(toLangChainMessage);
}

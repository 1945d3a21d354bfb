/** ctxmem messages → OpenAI Responses request bodies (see `index.ts`). */
import type {
  AssistantMessage,
  CustomPart,
  Message,
  ProviderOptions,
  SystemMessage,
  ToolResultPart,
  UserMessage,
} from '../../contracts/index.js';
import { UnsupportedFormatError } from '../../errors/index.js';
import { requireOptions } from '../../validation/index.js';
import { splitJoinedText, toolArgumentsText } from '../converter-fields.js';
import { mapToolOutput } from '../message-utils.js';
import {
  type Item,
  type Marker,
  markerOf,
  type OpenAIResponsesItem,
} from './openai-responses-marker.js';

/** Options of `toOpenAIResponses`. */
export interface ToOpenAIResponsesOptions {
  /**
   * Write `input` as a plain string when the conversation is one user message of text (the input
   * was a string).
   * @default false
   */
  inputAsText?: boolean;
}

/**
 * Converts ctxmem messages to a Responses body's `instructions` and `input`: system messages that
 * came from `instructions` go back there (ctxmem's own system messages, such as the rolling
 * summary, become `system` input items), an assistant message becomes its items in order
 * (messages, reasoning, `function_call`, compaction items), a tool message becomes
 * `function_call_output` items.
 * Throws `UnsupportedFormatError` for parts the Responses API has no item for (assistant files,
 * tool approvals).
 */
export function toOpenAIResponses(
  messages: readonly Message[],
  options: ToOpenAIResponsesOptions = {},
): { instructions?: string; input: string | OpenAIResponsesItem[] } {
  const { inputAsText = false } = requireOptions(options, 'toOpenAIResponses');
  const instructions: string[] = [];
  const input: Item[] = [];
  for (const [index, message] of messages.entries()) {
    const marker = markerOf(message);
    switch (message.role) {
      case 'system':
        if (marker.instructions) instructions.push(message.content);
        else input.push(systemToResponses(message, marker));
        break;
      case 'user':
        input.push(userToResponses(message, marker));
        break;
      case 'assistant':
        input.push(...assistantToResponses(message, `messages[${index}]`));
        break;
      case 'tool':
        for (const part of message.content) {
          if (part.type !== 'tool-result') {
            throw new UnsupportedFormatError({
              message: `The Responses API has no item for a ${part.type} part (tool approvals)`,
            });
          }
          input.push(functionOutputToResponses(part));
        }
        break;
    }
  }
  const head = instructions.length > 0 ? { instructions: instructions.join('\n\n') } : {};
  const only = input[0];
  if (
    inputAsText &&
    input.length === 1 &&
    only?.role === 'user' &&
    typeof only.content === 'string' &&
    Object.keys(only).length === 2
  ) {
    return { ...head, input: only.content };
  }
  return { ...head, input };
}

function itemHead(marker: Marker, role: string): Item {
  return { ...(marker.typed ? { type: 'message' } : {}), role, ...marker.item };
}

function systemToResponses(message: SystemMessage, marker: Marker): Item {
  const head = itemHead(marker, marker.role ?? 'system');
  if (marker.content === 'parts') {
    const content = splitJoinedText(message.content, marker.parts).map(({ text, extra }) => ({
      type: 'input_text',
      text,
      ...extra,
    }));
    return { ...head, content };
  }
  return { ...head, content: message.content };
}

function userToResponses(message: UserMessage, marker: Marker): Item {
  const head = itemHead(marker, 'user');
  if (typeof message.content === 'string') return { ...head, content: message.content };
  return {
    ...head,
    content: message.content.map((part) => {
      const partMarker = markerOf(part);
      if (part.type === 'text') return { type: 'input_text', text: part.text, ...partMarker.extra };
      if (part.type === 'image') {
        const field = partMarker.source === 'file_id' ? 'file_id' : 'image_url';
        return {
          type: 'input_image',
          [field]: dataText(part.image, part.mediaType ?? 'image/png'),
          ...partMarker.extra,
        };
      }
      const field = partMarker.source ?? 'file_data';
      return {
        type: 'input_file',
        [field]: dataText(part.data, part.mediaType),
        ...(part.filename !== undefined ? { filename: part.filename } : {}),
        ...partMarker.extra,
      };
    }),
  };
}

/** Data as the Responses API takes it: URLs and data URLs as they are, bytes as a data URL. */
function dataText(data: unknown, mediaType: string): string {
  if (typeof data === 'string') return data;
  if (data instanceof URL) return data.href;
  const bytes = data instanceof ArrayBuffer ? new Uint8Array(data) : (data as Uint8Array);
  return `data:${mediaType};base64,${Buffer.from(bytes).toString('base64')}`;
}

function assistantToResponses(message: AssistantMessage, path: string): Item[] {
  const messageMarker = markerOf(message);
  if (typeof message.content === 'string') {
    return [{ ...itemHead(messageMarker, 'assistant'), content: message.content }];
  }
  const items: Item[] = [];
  // The message item that following text parts marked `continued` join.
  let open: Item[] | undefined;
  for (const [index, part] of message.content.entries()) {
    const marker = markerOf(part);
    if (part.type === 'text') {
      const content = {
        type: marker.partType ?? 'output_text',
        [marker.partType === 'refusal' ? 'refusal' : 'text']: part.text,
        ...(marker.extra ?? (marker.partType === undefined ? { annotations: [] } : {})),
      };
      if (marker.continued && open) {
        open.push(content);
        continue;
      }
      if (marker.content === 'parts' || marker.continued) {
        open = [];
        if (part.text !== '' || marker.extra !== undefined || marker.partType !== undefined)
          open.push(content);
        items.push({ ...itemHead(marker, 'assistant'), content: open });
      } else {
        open = undefined;
        items.push({ ...itemHead(marker, 'assistant'), content: part.text });
      }
      continue;
    }
    open = undefined;
    if (part.type === 'reasoning') {
      // Opaque: only the item OpenAI produced can go back (see the module comment).
      if (marker.reasoning) items.push(marker.reasoning);
      continue;
    }
    if (part.type === 'tool-call') {
      const text = toolArgumentsText(part.input ?? {}, marker, `${path}.content[${index}].input`);
      items.push({
        type: 'function_call',
        call_id: part.toolCallId,
        name: part.toolName,
        arguments: text,
        ...marker.item,
      });
      continue;
    }
    if (part.type === 'tool-result') {
      items.push(functionOutputToResponses(part));
      continue;
    }
    if (part.type === 'custom') {
      const item = customToResponses(part);
      if (item) items.push(item);
      continue;
    }
    throw new UnsupportedFormatError({
      message: `The Responses API has no input item for an assistant ${part.type} part`,
    });
  }
  return items;
}

/**
 * A compaction item back: verbatim when it was read from a Responses body, or from the AI SDK's
 * `openai.compaction` part (item id and encrypted content). Other custom parts have no item.
 */
function customToResponses(part: CustomPart): Item | undefined {
  if (part.kind !== 'openai.compaction') return undefined;
  const original = markerOf(part).item;
  if (original?.type === 'compaction') return original;
  const options = part.providerOptions?.openai;
  if (typeof options?.itemId !== 'string') return undefined;
  return {
    type: 'compaction',
    id: options.itemId,
    ...(typeof options.encryptedContent === 'string'
      ? { encrypted_content: options.encryptedContent }
      : {}),
  };
}

function functionOutputToResponses(part: ToolResultPart): Item {
  const marker = markerOf(part);
  const { output } = part;
  const value = mapToolOutput(output, {
    deniedText: 'The tool call was denied.',
    stringify: (json) => JSON.stringify(json) as string,
    contentPart: (entry) => {
      if (entry.type === 'text' && typeof entry.text === 'string') {
        return {
          type: 'input_text',
          text: entry.text,
          ...markerOf(entry as { providerOptions?: ProviderOptions }).extra,
        };
      }
      if (
        entry.type === 'media' &&
        typeof entry.data === 'string' &&
        typeof entry.mediaType === 'string'
      ) {
        return entry.mediaType.startsWith('image/')
          ? {
              type: 'input_image',
              image_url: `data:${entry.mediaType};base64,${entry.data}`,
              detail: 'auto',
            }
          : { type: 'input_file', file_data: `data:${entry.mediaType};base64,${entry.data}` };
      }
      return entry;
    },
  });
  return { type: 'function_call_output', call_id: part.toolCallId, output: value, ...marker.item };
}

/** ctxmem messages → OpenAI Chat Completions messages (see `openai-chat.ts`). */
import type {
  AssistantMessage,
  DataContent,
  FilePart,
  ImagePart,
  Message,
  TextPart,
  ToolCallPart,
  ToolResultOutput,
  UserContentPart,
} from '../../contracts/index.js';
import {
  base64Of,
  splitJoinedText,
  stringifyJson,
  toolArgumentsText,
} from '../converter-fields.js';
import { mapToolOutput } from '../message-utils.js';
import { audioFormat, type Marker, markerOf } from './openai-chat-marker.js';
import type {
  OpenAIChatAssistantMessage,
  OpenAIChatMessage,
  OpenAIChatRefusalPart,
  OpenAIChatTextPart,
  OpenAIChatToolCall,
  OpenAIChatUserPart,
} from './openai-chat-types.js';

/**
 * Converts ctxmem messages to an OpenAI Chat Completions `messages` array. Markers left by
 * `fromOpenAIChat` restore the original shapes; ctxmem metadata and ids are dropped. Parts OpenAI
 * Chat cannot carry are left out: reasoning, assistant files, provider-executed tool calls and
 * results, tool approvals. Each tool result becomes its own tool message; media inside tool
 * results becomes a `[… omitted]` text note. Throws `InvalidMessageError` when a value cannot be
 * serialized (cycles, nesting too deep for `JSON.stringify`).
 */
export function toOpenAIChat(messages: readonly Message[]): OpenAIChatMessage[] {
  const output: OpenAIChatMessage[] = [];
  messages.forEach((message, index) => {
    const path = `messages[${index}]`;
    const marker = markerOf(message);
    const name = message.name === undefined ? {} : { name: message.name };
    switch (message.role) {
      case 'system':
        output.push({
          role: marker.role === 'developer' ? 'developer' : 'system',
          ...marker.extra,
          content: systemContentToOpenAI(message.content, marker),
          ...name,
        });
        break;
      case 'user':
        output.push({
          role: 'user',
          ...marker.extra,
          content:
            typeof message.content === 'string'
              ? message.content
              : message.content.map((part) => userPartToOpenAI(part)),
          ...name,
        });
        break;
      case 'assistant':
        output.push(assistantToOpenAI(message, marker, path));
        break;
      case 'tool':
        message.content.forEach((part, partIndex) => {
          if (part.type !== 'tool-result') return;
          output.push({
            role: 'tool',
            ...marker.extra,
            tool_call_id: part.toolCallId,
            content: toolOutputToOpenAI(part.output, `${path}.content[${partIndex}].output`),
            ...name,
          });
        });
        break;
    }
  });
  return output;
}

function systemContentToOpenAI(content: string, marker: Marker): string | OpenAIChatTextPart[] {
  if (marker.content !== 'parts') return content;
  return splitJoinedText(content, marker.parts).map(({ text, extra }) => ({
    ...extra,
    type: 'text',
    text,
  }));
}

export function imageUrlOf(part: ImagePart, marker: Marker): string {
  const image = part.image;
  if (typeof image === 'string') {
    // Base64 never contains a colon; anything with a scheme is already a URL.
    if (marker.urlVerbatim === true || image.includes(':')) return image;
    return `data:${part.mediaType ?? 'image/jpeg'};base64,${image}`;
  }
  if (image instanceof URL) return image.href;
  return `data:${part.mediaType ?? 'image/jpeg'};base64,${base64Of(image)}`;
}

/** Where a file's data goes in OpenAI's `file` object when no marker says otherwise. */
export function defaultFileField(part: FilePart): {
  field: 'file_data' | 'file_id';
  value: string;
} {
  const data: DataContent = part.data;
  if (typeof data === 'string') {
    if (data.startsWith('file-')) return { field: 'file_id', value: data };
    if (data.includes(':')) return { field: 'file_data', value: data };
    return { field: 'file_data', value: `data:${part.mediaType};base64,${data}` };
  }
  if (data instanceof URL) return { field: 'file_data', value: data.href };
  return { field: 'file_data', value: `data:${part.mediaType};base64,${base64Of(data)}` };
}

function userPartToOpenAI(part: UserContentPart): OpenAIChatUserPart {
  const marker = markerOf(part);
  switch (part.type) {
    case 'text':
      return { ...marker.extra, type: 'text', text: part.text };
    case 'image': {
      const detail = part.providerOptions?.openai?.imageDetail;
      return {
        ...marker.extra,
        type: 'image_url',
        image_url: {
          ...marker.innerExtra,
          url: imageUrlOf(part, marker),
          ...(typeof detail === 'string' ? { detail } : {}),
        },
      };
    }
    case 'file': {
      const isAudio = marker.kind
        ? marker.kind === 'input_audio'
        : part.mediaType.startsWith('audio/');
      if (isAudio) {
        const data =
          typeof part.data === 'string'
            ? part.data.replace(/^data:[^,]*,/, '')
            : part.data instanceof URL
              ? part.data.href
              : base64Of(part.data);
        return {
          ...marker.extra,
          type: 'input_audio',
          input_audio: {
            ...marker.innerExtra,
            data,
            format: marker.format ?? audioFormat(part.mediaType),
          },
        };
      }
      let { field, value } = defaultFileField(part);
      if (marker.source !== undefined && typeof part.data === 'string') {
        field = marker.source;
        value = part.data;
      }
      return {
        ...marker.extra,
        type: 'file',
        file: {
          ...marker.innerExtra,
          [field]: value,
          ...(part.filename !== undefined ? { filename: part.filename } : {}),
        },
      };
    }
  }
}

function assistantToOpenAI(
  message: AssistantMessage,
  marker: Marker,
  path: string,
): OpenAIChatAssistantMessage {
  const name = message.name === undefined ? {} : { name: message.name };
  if (typeof message.content === 'string') {
    return {
      role: 'assistant',
      ...marker.extra,
      content:
        marker.content === 'parts' ? [{ type: 'text', text: message.content }] : message.content,
      ...name,
    };
  }
  const contentParts: Array<OpenAIChatTextPart | OpenAIChatRefusalPart> = [];
  let refusal: string | undefined;
  const toolCalls: OpenAIChatToolCall[] = [];
  message.content.forEach((part, index) => {
    if (part.type === 'text') {
      const partMarker = markerOf(part);
      if (partMarker.refusal === 'field') {
        refusal = refusal === undefined ? part.text : `${refusal}\n${part.text}`;
      } else if (partMarker.refusal === 'part') {
        contentParts.push({ ...partMarker.extra, type: 'refusal', refusal: part.text });
      } else {
        contentParts.push({ ...partMarker.extra, type: 'text', text: part.text });
      }
    } else if (part.type === 'tool-call' && part.providerExecuted !== true) {
      toolCalls.push(toolCallToOpenAI(part, `${path}.content[${index}]`));
    }
  });
  let content: OpenAIChatAssistantMessage['content'];
  if (marker.content === 'parts') content = contentParts;
  else if (contentParts.length === 0) {
    if (marker.content === 'absent') content = undefined;
    else if (marker.content === 'null' || toolCalls.length > 0 || refusal !== undefined)
      content = null;
    else content = ''; // OpenAI needs content on an assistant message without tool calls
  } else if (contentParts.every((part) => part.type === 'text')) {
    content = (contentParts as OpenAIChatTextPart[]).map((part) => part.text).join('');
  } else content = contentParts;
  return {
    role: 'assistant',
    ...marker.extra,
    ...(content !== undefined ? { content } : {}),
    ...(refusal !== undefined ? { refusal } : {}),
    ...name,
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
  };
}

function toolCallToOpenAI(part: ToolCallPart, path: string): OpenAIChatToolCall {
  const marker = markerOf(part);
  if (marker.type === 'custom') {
    const input =
      typeof part.input === 'string' ? part.input : stringifyJson(part.input, `${path}.input`);
    return {
      ...marker.extra,
      id: part.toolCallId,
      type: 'custom',
      custom: { ...marker.innerExtra, name: part.toolName, input },
    };
  }
  const text = toolArgumentsText(part.input, marker, `${path}.input`);
  const call = {
    ...marker.extra,
    id: part.toolCallId,
    type: 'function' as const,
    function: { ...marker.innerExtra, name: part.toolName, arguments: text },
  };
  if (marker.typeOmitted === true) {
    const { type: _type, ...untyped } = call;
    return untyped as OpenAIChatToolCall;
  }
  return call;
}

function toolOutputToOpenAI(output: ToolResultOutput, path: string): string | OpenAIChatTextPart[] {
  return mapToolOutput(output, {
    stringify: (value) => stringifyJson(value, `${path}.value`),
    contentPart: (item): OpenAIChatTextPart => {
      if (item.type === 'text' && typeof item.text === 'string') {
        return { ...markerOf(item as TextPart).extra, type: 'text', text: item.text };
      }
      // OpenAI tool messages carry text only.
      const mediaType = (item as { mediaType?: unknown }).mediaType;
      return {
        type: 'text',
        text: `[${typeof mediaType === 'string' ? mediaType : item.type} omitted]`,
      };
    },
  });
}

/** OpenAI Chat Completions messages → ctxmem messages (see `index.ts`). */
import type {
  AssistantContentPart,
  AssistantMessage,
  FilePart,
  ImagePart,
  Message,
  SystemMessage,
  ToolCallPart,
  ToolMessage,
  ToolResultOutput,
  UserContentPart,
  UserMessage,
} from '../../contracts/index.js';
import {
  dataUrlMediaType,
  extraFields,
  joinTextParts,
  parseToolArguments,
  requireObject,
  requireString,
} from '../converter-fields.js';
import { checkJsonValue, describeValue } from '../json-values.js';
import { fail } from '../message-shape.js';
import {
  audioFormat,
  audioMediaType,
  type Marker,
  optionalName,
  withMarker,
} from './openai-chat-marker.js';
import { defaultFileField, imageUrlOf } from './to-openai-chat.js';

/**
 * Converts an OpenAI Chat Completions `messages` array to ctxmem messages. `developer` becomes
 * `system`, every tool message becomes one core tool message whose `toolName` comes from the
 * preceding call (empty when no call has that id), `arguments` are parsed into `input` (kept as
 * the raw string when they do not parse). Throws `InvalidMessageError` with the path of the first
 * malformed field, and for the deprecated `function` role. Messages are JSON: a value JSON cannot
 * hold (a cycle, a BigInt, a function, a hole) is an `InvalidMessageError` at its path too.
 */
export function fromOpenAIChat(input: unknown): Message[] {
  if (!Array.isArray(input)) {
    fail('messages', `expected an array of messages, got ${describeValue(input)}`);
  }
  // Unknown fields are carried along: checked up front, where the input paths are known.
  checkJsonValue(input, 'messages');
  const toolNames = new Map<string, string>();
  return input.map((value, index) => {
    const path = `messages[${index}]`;
    const message = requireObject(value, path, 'a message object');
    switch (message.role) {
      case 'system':
      case 'developer':
        return systemFromOpenAI(message, path);
      case 'user':
        return userFromOpenAI(message, path);
      case 'assistant':
        return assistantFromOpenAI(message, path, toolNames);
      case 'tool':
        return toolFromOpenAI(message, path, toolNames);
      case 'function':
        return fail(
          `${path}.role`,
          "the deprecated 'function' role is not supported; send tool calls and tool messages",
        );
      default:
        return fail(
          `${path}.role`,
          typeof message.role === 'string'
            ? `unknown role ${JSON.stringify(message.role)}`
            : `expected a role string, got ${describeValue(message.role)}`,
        );
    }
  });
}

function textPartFromOpenAI(value: unknown, path: string, type = 'text') {
  const part = requireObject(value, path, 'a content part');
  if (part.type !== type) {
    fail(`${path}.type`, `expected a '${type}' part, got ${describeValue(part.type)}`);
  }
  return {
    text: requireString(part.text, `${path}.text`),
    extra: extraFields(part, ['type', 'text']),
  };
}

function systemFromOpenAI(value: Record<string, unknown>, path: string): SystemMessage {
  const marker: Marker = {
    role: value.role === 'developer' ? 'developer' : undefined,
    extra: extraFields(value, ['role', 'content', 'name']),
  };
  let content: string;
  if (typeof value.content === 'string') {
    content = value.content;
  } else if (Array.isArray(value.content)) {
    const joined = joinTextParts(
      value.content.map((part, index) => textPartFromOpenAI(part, `${path}.content[${index}]`)),
    );
    content = joined.content;
    marker.content = 'parts';
    marker.parts = joined.parts;
  } else {
    fail(`${path}.content`, `expected a string or text parts, got ${describeValue(value.content)}`);
  }
  return { role: 'system', content, ...optionalName(value, path), ...withMarker(marker) };
}

function userFromOpenAI(value: Record<string, unknown>, path: string): UserMessage {
  const marker: Marker = { extra: extraFields(value, ['role', 'content', 'name']) };
  let content: UserMessage['content'];
  if (typeof value.content === 'string') {
    content = value.content;
  } else if (Array.isArray(value.content)) {
    content = value.content.map((part, index) =>
      userPartFromOpenAI(part, `${path}.content[${index}]`),
    );
  } else {
    fail(
      `${path}.content`,
      `expected a string or content parts, got ${describeValue(value.content)}`,
    );
  }
  return { role: 'user', content, ...optionalName(value, path), ...withMarker(marker) };
}

function userPartFromOpenAI(value: unknown, path: string): UserContentPart {
  const part = requireObject(value, path, 'a content part');
  switch (part.type) {
    case 'text': {
      const { text, extra } = textPartFromOpenAI(part, path);
      return { type: 'text', text, ...withMarker({ extra }) };
    }
    case 'image_url': {
      const image = requireObject(part.image_url, `${path}.image_url`, 'an object');
      const url = requireString(image.url, `${path}.image_url.url`);
      const detail =
        image.detail === undefined
          ? undefined
          : requireString(image.detail, `${path}.image_url.detail`);
      const mediaType = dataUrlMediaType(url);
      const result: ImagePart = { type: 'image', image: url, ...(mediaType ? { mediaType } : {}) };
      const marker: Marker = {
        extra: extraFields(part, ['type', 'image_url']),
        innerExtra: extraFields(image, ['url', 'detail']),
        urlVerbatim: imageUrlOf(result, {}) === url ? undefined : true,
      };
      // `openai.imageDetail` is where the AI SDK's OpenAI provider reads the detail from.
      return {
        ...result,
        ...withMarker(
          marker,
          detail === undefined ? undefined : { openai: { imageDetail: detail } },
        ),
      };
    }
    case 'input_audio': {
      const audio = requireObject(part.input_audio, `${path}.input_audio`, 'an object');
      const data = requireString(audio.data, `${path}.input_audio.data`);
      const format = requireString(audio.format, `${path}.input_audio.format`);
      const mediaType = audioMediaType(format);
      const marker: Marker = {
        extra: extraFields(part, ['type', 'input_audio']),
        innerExtra: extraFields(audio, ['data', 'format']),
        format: audioFormat(mediaType) === format ? undefined : format,
      };
      return { type: 'file', data, mediaType, ...withMarker(marker) };
    }
    case 'file': {
      const file = requireObject(part.file, `${path}.file`, 'an object');
      const filename =
        file.filename === undefined
          ? undefined
          : requireString(file.filename, `${path}.file.filename`);
      let source: 'file_data' | 'file_id';
      let data: string;
      if (typeof file.file_data === 'string') {
        source = 'file_data';
        data = file.file_data;
      } else if (typeof file.file_id === 'string') {
        source = 'file_id';
        data = file.file_id;
      } else {
        return fail(`${path}.file`, 'a file part needs a file_data or file_id string');
      }
      // OpenAI accepts PDF files in chat messages; ids carry no type, so PDF is the honest guess.
      const mediaType =
        (source === 'file_data' ? dataUrlMediaType(data) : undefined) ?? 'application/pdf';
      const result: FilePart = {
        type: 'file',
        data,
        mediaType,
        ...(filename !== undefined ? { filename } : {}),
      };
      const fallback = defaultFileField(result);
      const marker: Marker = {
        extra: extraFields(part, ['type', 'file']),
        innerExtra: extraFields(file, [source, 'filename']),
        kind: mediaType.startsWith('audio/') ? 'file' : undefined,
        source: fallback.field === source && fallback.value === data ? undefined : source,
      };
      return { ...result, ...withMarker(marker) };
    }
    default:
      return fail(
        `${path}.type`,
        `unsupported user content part type ${typeof part.type === 'string' ? JSON.stringify(part.type) : describeValue(part.type)}`,
      );
  }
}

function assistantFromOpenAI(
  value: Record<string, unknown>,
  path: string,
  toolNames: Map<string, string>,
): AssistantMessage {
  const hasRefusal = typeof value.refusal === 'string';
  const toolCalls =
    Array.isArray(value.tool_calls) && value.tool_calls.length > 0 ? value.tool_calls : [];
  if (
    value.tool_calls !== undefined &&
    value.tool_calls !== null &&
    !Array.isArray(value.tool_calls)
  ) {
    fail(`${path}.tool_calls`, `expected an array, got ${describeValue(value.tool_calls)}`);
  }
  const known = ['role', 'content', 'name'];
  if (hasRefusal) known.push('refusal');
  if (toolCalls.length > 0) known.push('tool_calls');
  const marker: Marker = { extra: extraFields(value, known) };
  const base = { role: 'assistant' as const, ...optionalName(value, path) };

  if (typeof value.content === 'string' && !hasRefusal && toolCalls.length === 0) {
    return { ...base, content: value.content, ...withMarker(marker) };
  }
  const parts: AssistantContentPart[] = [];
  if (typeof value.content === 'string') {
    parts.push({ type: 'text', text: value.content });
  } else if (Array.isArray(value.content)) {
    marker.content = 'parts';
    value.content.forEach((item, index) => {
      const partPath = `${path}.content[${index}]`;
      const part = requireObject(item, partPath, 'a content part');
      if (part.type === 'refusal') {
        const refusal = requireString(part.refusal, `${partPath}.refusal`);
        const extra = extraFields(part, ['type', 'refusal']);
        parts.push({ type: 'text', text: refusal, ...withMarker({ refusal: 'part', extra }) });
      } else {
        const { text, extra } = textPartFromOpenAI(part, partPath);
        parts.push({ type: 'text', text, ...withMarker({ extra }) });
      }
    });
  } else if (value.content === undefined) {
    marker.content = 'absent';
  } else if (value.content === null) {
    // Null is what OpenAI sends next to tool calls or a refusal; elsewhere it needs a marker.
    if (!hasRefusal && toolCalls.length === 0) marker.content = 'null';
  } else {
    fail(
      `${path}.content`,
      `expected a string, null or content parts, got ${describeValue(value.content)}`,
    );
  }
  if (hasRefusal) {
    parts.push({
      type: 'text',
      text: value.refusal as string,
      ...withMarker({ refusal: 'field' }),
    });
  }
  toolCalls.forEach((call, index) => {
    parts.push(toolCallFromOpenAI(call, `${path}.tool_calls[${index}]`, toolNames));
  });
  return { ...base, content: parts, ...withMarker(marker) };
}

function toolCallFromOpenAI(
  value: unknown,
  path: string,
  toolNames: Map<string, string>,
): ToolCallPart {
  const call = requireObject(value, path, 'a tool call');
  const toolCallId = requireString(call.id, `${path}.id`, { nonEmpty: true });
  const marker: Marker = {};
  let toolName: string;
  let input: unknown;
  if (call.type === 'custom') {
    const custom = requireObject(call.custom, `${path}.custom`, 'an object');
    toolName = requireString(custom.name, `${path}.custom.name`, { nonEmpty: true });
    input = requireString(custom.input, `${path}.custom.input`);
    marker.type = 'custom';
    marker.extra = extraFields(call, ['id', 'type', 'custom']);
    marker.innerExtra = extraFields(custom, ['name', 'input']);
  } else {
    if (call.type === undefined) marker.typeOmitted = true;
    else if (call.type !== 'function') {
      fail(`${path}.type`, `unsupported tool call type ${describeValue(call.type)}`);
    }
    const fn = requireObject(call.function, `${path}.function`, 'an object');
    toolName = requireString(fn.name, `${path}.function.name`, { nonEmpty: true });
    const text = requireString(fn.arguments, `${path}.function.arguments`);
    marker.extra = extraFields(call, ['id', 'type', 'function']);
    marker.innerExtra = extraFields(fn, ['name', 'arguments']);
    const { input: parsed, ...argumentsMarker } = parseToolArguments(text);
    input = parsed;
    Object.assign(marker, argumentsMarker);
  }
  toolNames.set(toolCallId, toolName);
  return { type: 'tool-call', toolCallId, toolName, input, ...withMarker(marker) };
}

function toolFromOpenAI(
  value: Record<string, unknown>,
  path: string,
  toolNames: Map<string, string>,
): ToolMessage {
  const toolCallId = requireString(value.tool_call_id, `${path}.tool_call_id`, { nonEmpty: true });
  let output: ToolResultOutput;
  if (typeof value.content === 'string') {
    output = { type: 'text', value: value.content };
  } else if (Array.isArray(value.content)) {
    output = {
      type: 'content',
      value: value.content.map((part, index) => {
        const { text, extra } = textPartFromOpenAI(part, `${path}.content[${index}]`);
        return { type: 'text' as const, text, ...withMarker({ extra }) };
      }),
    };
  } else {
    fail(`${path}.content`, `expected a string or text parts, got ${describeValue(value.content)}`);
  }
  const marker: Marker = { extra: extraFields(value, ['role', 'content', 'name', 'tool_call_id']) };
  return {
    role: 'tool',
    content: [
      { type: 'tool-result', toolCallId, toolName: toolNames.get(toolCallId) ?? '', output },
    ],
    ...optionalName(value, path),
    ...withMarker(marker),
  };
}

// ---------------------------------------------------------------------------------------------
// core → OpenAI

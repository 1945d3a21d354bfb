/**
 * OpenAI Chat Completions messages ⇄ ctxmem messages.
 *
 * `toOpenAIChat(fromOpenAIChat(x))` gives back `x` (deep-equal) for every valid request history.
 * Whatever has no place in the core model is kept in `providerOptions.openaiChat` on the message or
 * part (see `OpenAIChatMarker`): the `developer` role, unknown fields, how `content` was shaped,
 * refusals, and tool-call `arguments` whose text is not the canonical `JSON.stringify` of their
 * value. Markers are hints: when a strategy rewrites a message, the output follows the new content
 * and ignores markers that no longer fit.
 */
import type {
  AssistantContentPart,
  AssistantMessage,
  DataContent,
  FilePart,
  ImagePart,
  JsonValue,
  Message,
  ProviderOptions,
  SystemMessage,
  TextPart,
  ToolCallPart,
  ToolMessage,
  ToolResultOutput,
  UserContentPart,
  UserMessage,
} from '../contracts/index.js';
import { InvalidMessageError } from '../errors/index.js';
import {
  describeValue,
  exceedsJsonDepth,
  isPlainObject,
  MAX_MESSAGE_JSON_DEPTH,
} from './json-values.js';
import type {
  OpenAIChatAssistantMessage,
  OpenAIChatMessage,
  OpenAIChatRefusalPart,
  OpenAIChatTextPart,
  OpenAIChatToolCall,
  OpenAIChatUserPart,
} from './openai-chat-types.js';

/** The `providerOptions` key under which the OpenAI Chat converter keeps its markers. */
export const OPENAI_CHAT_OPTIONS_KEY = 'openaiChat';

/**
 * What `fromOpenAIChat` keeps in `providerOptions.openaiChat` so that `toOpenAIChat` can rebuild
 * the original JSON. Every field is optional and only set when the default conversion would not
 * reproduce the input.
 */
export interface OpenAIChatMarker {
  /** The message was a `developer` message (core has `system` only). */
  role?: 'developer';
  /** Fields ctxmem does not know, on the message or part, passed through untouched. */
  extra?: { [key: string]: JsonValue };
  /** Unknown fields of the nested object (`image_url`, `input_audio`, `file`, `function`, `custom`). */
  innerExtra?: { [key: string]: JsonValue };
  /** `content` was an array of parts, `null` where a string is the default, or missing. */
  content?: 'parts' | 'null' | 'absent';
  /** Lengths (and unknown fields) of the text parts a system message was joined from, with `\n`. */
  parts?: Array<{ length: number; extra?: { [key: string]: JsonValue } }>;
  /** This text part was the assistant's `refusal` field, or a `refusal` content part. */
  refusal?: 'field' | 'part';
  /** The original `arguments` text, when it is not the canonical JSON of the parsed value. */
  arguments?: string;
  /** `arguments` did not parse (or nested too deep), so `input` is the raw string. */
  argumentsUnparsed?: true;
  /** A custom (free-form input) tool call instead of a function call. */
  type?: 'custom';
  /** The tool call had no `type` field. */
  typeOmitted?: true;
  /** A file part that is not sent as `input_audio` even though it is audio, and vice versa. */
  kind?: 'file' | 'input_audio';
  /** The `input_audio.format` when it is not the one derived from the media type. */
  format?: string;
  /** Which `file` field held the data, when it cannot be told from the data itself. */
  source?: 'file_data' | 'file_id';
  /** The image URL is used verbatim even though it does not look like a URL. */
  urlVerbatim?: true;
}

type Marker = OpenAIChatMarker;

function fail(path: string, problem: string): never {
  throw new InvalidMessageError({ message: `${path}: ${problem}`, path });
}

function markerOf(holder: { providerOptions?: ProviderOptions }): Marker {
  const marker = holder.providerOptions?.[OPENAI_CHAT_OPTIONS_KEY];
  if (!isPlainObject(marker)) return {};
  // Markers may have been edited by hand in stored JSON: spread only what is really an object.
  const { extra, innerExtra, parts, ...rest } = marker as Marker;
  return {
    ...rest,
    ...(isPlainObject(extra) ? { extra } : {}),
    ...(isPlainObject(innerExtra) ? { innerExtra } : {}),
    ...(Array.isArray(parts) && parts.every(isPlainObject) ? { parts } : {}),
  };
}

/** `providerOptions` holding `marker` (and `others`), or nothing when both are empty. */
function withMarker(
  marker: Marker,
  others?: ProviderOptions,
): { providerOptions?: ProviderOptions } {
  let kept: Record<string, JsonValue> | undefined;
  for (const key in marker) {
    const value = marker[key as keyof Marker];
    if (value === undefined) continue;
    kept ??= {};
    kept[key] = value as JsonValue;
  }
  if (kept === undefined) return others === undefined ? {} : { providerOptions: others };
  return { providerOptions: { ...others, [OPENAI_CHAT_OPTIONS_KEY]: kept } };
}

/** The fields of `value` not in `known`, or `undefined` when there are none. */
function extraFields(
  value: Record<string, unknown>,
  known: readonly string[],
): { [key: string]: JsonValue } | undefined {
  let extra: { [key: string]: JsonValue } | undefined;
  for (const [key, field] of Object.entries(value)) {
    if (field === undefined || known.includes(key)) continue;
    extra ??= {};
    extra[key] = field as JsonValue;
  }
  return extra;
}

function requireObject(value: unknown, path: string, what: string): Record<string, unknown> {
  if (!isPlainObject(value)) fail(path, `expected ${what}, got ${describeValue(value)}`);
  return value;
}

function requireString(value: unknown, path: string, { nonEmpty = false } = {}): string {
  if (typeof value !== 'string') fail(path, `expected a string, got ${describeValue(value)}`);
  if (nonEmpty && value.length === 0) fail(path, 'must not be empty');
  return value;
}

function optionalName(value: Record<string, unknown>, path: string): { name?: string } {
  return value.name === undefined ? {} : { name: requireString(value.name, `${path}.name`) };
}

/** The media type of a `data:` URL (`data:image/png;base64,…` → `image/png`). */
function dataUrlMediaType(url: string): string | undefined {
  const match = /^data:([^;,]+)[;,]/i.exec(url);
  return match?.[1];
}

function base64Of(data: Uint8Array | ArrayBuffer): string {
  return Buffer.from(data instanceof ArrayBuffer ? new Uint8Array(data) : data).toString('base64');
}

function stringifyJson(value: unknown, path: string): string {
  try {
    const text = JSON.stringify(value);
    if (text === undefined) fail(path, `${describeValue(value)} is not a JSON value`);
    return text;
  } catch (error) {
    if (InvalidMessageError.isInstance(error)) throw error;
    // Stack overflow on deep nesting, cycles and BigInt all end here as a typed error.
    throw new InvalidMessageError({
      message: `${path}: cannot be serialized as JSON (${(error as Error).message})`,
      path,
      cause: error,
    });
  }
}

// ---------------------------------------------------------------------------------------------
// OpenAI → core

/**
 * Converts an OpenAI Chat Completions `messages` array to ctxmem messages. `developer` becomes
 * `system`, every tool message becomes one core tool message whose `toolName` comes from the
 * preceding call (empty when no call has that id), `arguments` are parsed into `input` (kept as
 * the raw string when they do not parse). Throws `InvalidMessageError` with the path of the first
 * malformed field, and for the deprecated `function` role.
 */
export function fromOpenAIChat(input: unknown): Message[] {
  if (!Array.isArray(input)) {
    fail('messages', `expected an array of messages, got ${describeValue(input)}`);
  }
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
    const parts = value.content.map((part, index) =>
      textPartFromOpenAI(part, `${path}.content[${index}]`),
    );
    content = parts.map((part) => part.text).join('\n');
    marker.content = 'parts';
    marker.parts = parts.map(({ text, extra }) => ({
      length: text.length,
      ...(extra ? { extra } : {}),
    }));
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
    let parsed: unknown;
    let parses = true;
    try {
      parsed = JSON.parse(text);
    } catch {
      parses = false;
    }
    // Deeper values would overflow JSON.stringify later; the raw text is safe to carry instead.
    // Nesting N levels deep takes at least 2N characters, so short text needs no depth walk.
    const tooDeep =
      parses &&
      text.length > 2 * MAX_MESSAGE_JSON_DEPTH &&
      exceedsJsonDepth(parsed, MAX_MESSAGE_JSON_DEPTH);
    if (!parses || tooDeep) {
      input = text;
      marker.argumentsUnparsed = true;
    } else {
      input = parsed;
      if (JSON.stringify(parsed) !== text) marker.arguments = text;
    }
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
  const parts = Array.isArray(marker.parts) ? marker.parts : [];
  const lengths = parts.map((part) => part.length);
  const joined = lengths.reduce((sum, length) => sum + length, 0) + Math.max(parts.length - 1, 0);
  let fits =
    joined === content.length && lengths.every((length) => Number.isInteger(length) && length >= 0);
  const pieces: OpenAIChatTextPart[] = [];
  let offset = 0;
  for (const part of fits ? parts : []) {
    if (offset > 0 && content[offset - 1] !== '\n') fits = false;
    pieces.push({ ...part.extra, type: 'text', text: content.slice(offset, offset + part.length) });
    offset += part.length + 1;
  }
  // The content was rewritten since it was read; send it whole.
  if (!fits || (parts.length === 0 && content.length > 0)) return [{ type: 'text', text: content }];
  return pieces;
}

function imageUrlOf(part: ImagePart, marker: Marker): string {
  const image = part.image;
  if (typeof image === 'string') {
    // Base64 never contains a colon; anything with a scheme is already a URL.
    if (marker.urlVerbatim === true || image.includes(':')) return image;
    return `data:${part.mediaType ?? 'image/jpeg'};base64,${image}`;
  }
  if (image instanceof URL) return image.href;
  return `data:${part.mediaType ?? 'image/jpeg'};base64,${base64Of(image)}`;
}

function audioMediaType(format: string): string {
  if (format === 'wav') return 'audio/wav';
  if (format === 'mp3') return 'audio/mpeg';
  return `audio/${format}`;
}

function audioFormat(mediaType: string): string {
  if (mediaType === 'audio/wav' || mediaType === 'audio/x-wav' || mediaType === 'audio/wave')
    return 'wav';
  if (mediaType === 'audio/mpeg' || mediaType === 'audio/mp3') return 'mp3';
  return mediaType.startsWith('audio/') ? mediaType.slice('audio/'.length) : mediaType;
}

/** Where a file's data goes in OpenAI's `file` object when no marker says otherwise. */
function defaultFileField(part: FilePart): { field: 'file_data' | 'file_id'; value: string } {
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
  let text: string;
  if (marker.argumentsUnparsed === true && typeof part.input === 'string') {
    text = part.input;
  } else {
    text = stringifyJson(part.input, `${path}.input`);
    if (typeof marker.arguments === 'string' && sameJson(marker.arguments, text)) {
      text = marker.arguments;
    }
  }
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

/** Whether `raw` is JSON text for the same value as the canonical `text`. */
function sameJson(raw: string, text: string): boolean {
  try {
    return JSON.stringify(JSON.parse(raw)) === text;
  } catch {
    return false;
  }
}

function toolOutputToOpenAI(output: ToolResultOutput, path: string): string | OpenAIChatTextPart[] {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return output.value;
    case 'json':
    case 'error-json':
      return stringifyJson(output.value, `${path}.value`);
    case 'execution-denied':
      return output.reason ?? 'Tool execution denied.';
    case 'content':
      return output.value.map((item): OpenAIChatTextPart => {
        if (item.type === 'text' && typeof item.text === 'string') {
          return { ...markerOf(item as TextPart).extra, type: 'text', text: item.text };
        }
        // OpenAI tool messages carry text only.
        const mediaType = (item as { mediaType?: unknown }).mediaType;
        return {
          type: 'text',
          text: `[${typeof mediaType === 'string' ? mediaType : item.type} omitted]`,
        };
      });
  }
}

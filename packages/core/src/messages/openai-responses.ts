/**
 * OpenAI Responses API request bodies (`instructions`, `input`) ⇄ ctxmem messages.
 *
 * The Responses API sends a conversation as a flat list of items: messages (`{ role, content }`,
 * with or without `type: 'message'`), `function_call`, `function_call_output` and `reasoning`
 * items; `input` may also be a plain string, and the system prompt may sit in the top-level
 * `instructions`. ctxmem groups them the way its message model does: `instructions` becomes a
 * leading system message, the assistant-side items between two user or tool turns (assistant
 * messages, reasoning, function calls) become one assistant message, and consecutive
 * `function_call_output` items become one tool message, so tool calls and their results pair up as
 * they do for every other format.
 *
 * What core has no field for is kept in `providerOptions.openaiResponses` (see
 * `OpenAIResponsesMarker`), so `toOpenAIResponses(fromOpenAIResponses(x))` gives back `x`
 * (deep-equal) for the items listed above.
 *
 * Reasoning items are opaque: their `encrypted_content` can only be read by OpenAI, and the API
 * only accepts them back unchanged. They become a `reasoning` part (its text is the reasoning
 * summary, so it is counted and shown) that carries the original item, which is written back
 * verbatim. They are never edited: compaction keeps them with their turn or drops them with it.
 * A reasoning part that did not come from a Responses body (no original item) is left out on
 * output, as the API cannot take reasoning it did not produce.
 *
 * Item types that ctxmem cannot represent (built-in tool calls such as `web_search_call`,
 * `item_reference`, MCP and custom tool items…) are rejected with `UnsupportedFormatError`
 * naming the item, never dropped.
 */
import type {
  AssistantContentPart,
  AssistantMessage,
  JsonValue,
  Message,
  ProviderOptions,
  SystemMessage,
  ToolResultOutput,
  ToolResultPart,
  UserContentPart,
  UserMessage,
} from '../contracts/index.js';
import { UnsupportedFormatError } from '../errors/index.js';
import {
  describeValue,
  exceedsJsonDepth,
  isPlainObject,
  MAX_MESSAGE_JSON_DEPTH,
} from './json-values.js';
import { fail } from './message-shape.js';
import {
  dataUrlMediaType,
  extraFields,
  requireObject,
  requireString,
  withMarkerUnder,
} from './openai-chat-marker.js';

/** The `providerOptions` key under which the Responses converter keeps its markers. */
export const OPENAI_RESPONSES_OPTIONS_KEY = 'openaiResponses';

/** One item of a Responses `input` array, as far as ctxmem reads it. */
export type OpenAIResponsesItem = Record<string, unknown>;

/** A Responses API request body; every field other than `instructions` and `input` is kept as is. */
export interface OpenAIResponsesBody {
  model?: string;
  instructions?: string | null;
  input: string | OpenAIResponsesItem[];
  tools?: unknown[];
  max_output_tokens?: number | null;
  [key: string]: unknown;
}

/**
 * What `fromOpenAIResponses` keeps in `providerOptions.openaiResponses` so that
 * `toOpenAIResponses` can rebuild the original JSON. Every field is optional and only set when the
 * default conversion would not reproduce the input.
 */
export interface OpenAIResponsesMarker {
  /** The system message came from the top-level `instructions`. */
  instructions?: true;
  /** The message was a `developer` message (core has `system` only). */
  role?: 'developer';
  /** The item had `type: 'message'`. */
  typed?: true;
  /** Fields of the item ctxmem does not know (`id`, `status`, `phase`…), passed through. */
  item?: { [key: string]: JsonValue };
  /** Fields of the content part ctxmem does not know (`annotations`, `detail`…). */
  extra?: { [key: string]: JsonValue };
  /** A system message's text parts (their lengths and unknown fields), joined with `\n`. */
  parts?: Array<{ length: number; extra?: { [key: string]: JsonValue } }>;
  /** The message's `content` was an array of parts (the default for assistant parts is a string). */
  content?: 'parts';
  /** This assistant text part belongs to the same message item as the part before it. */
  continued?: true;
  /** The assistant text part was a `refusal` part, or an `input_text` part. */
  partType?: 'refusal' | 'input_text';
  /** The original reasoning item, written back unchanged. */
  reasoning?: { [key: string]: JsonValue };
  /** The original `arguments` text, when it is not the canonical JSON of the parsed value. */
  arguments?: string;
  /** `arguments` did not parse (or nested too deep), so `input` is the raw string. */
  argumentsUnparsed?: true;
  /** An `input_image` given by `file_id`, or an `input_file` field other than `file_data`. */
  source?: 'file_id' | 'file_url';
}

type Marker = OpenAIResponsesMarker;
type Item = OpenAIResponsesItem;

/** The item types ctxmem reads; the Responses API has many more (built-in tools). */
export const OPENAI_RESPONSES_ITEM_TYPES: readonly string[] = [
  'message',
  'function_call',
  'function_call_output',
  'reasoning',
];

function markerOf(holder: { providerOptions?: ProviderOptions } | undefined): Marker {
  const marker = holder?.providerOptions?.[OPENAI_RESPONSES_OPTIONS_KEY];
  return isPlainObject(marker) ? (marker as Marker) : {};
}

function withMarker(
  marker: Marker,
  others?: ProviderOptions,
): { providerOptions?: ProviderOptions } {
  return withMarkerUnder(OPENAI_RESPONSES_OPTIONS_KEY, marker, others);
}

// ---------------------------------------------------------------------------------------------
// Responses → core

/**
 * Converts a Responses body's `instructions` and `input` to ctxmem messages. `input` may be a
 * string (one user message) or an array of items. Throws `InvalidMessageError` with the path of
 * the first malformed field (`input[3].call_id`) and `UnsupportedFormatError` naming item types
 * ctxmem cannot represent.
 */
export function fromOpenAIResponses(body: { instructions?: unknown; input: unknown }): Message[] {
  const result: Message[] = [];
  const { instructions, input } = body;
  if (instructions !== undefined && instructions !== null) {
    result.push({
      role: 'system',
      content: requireString(instructions, 'instructions'),
      ...withMarker({ instructions: true }),
    });
  }
  if (typeof input === 'string') {
    result.push({ role: 'user', content: input });
    return result;
  }
  if (!Array.isArray(input)) {
    fail('input', `expected a string or an array of items, got ${describeValue(input)}`);
  }
  const toolNames = new Map<string, string>();
  // The assistant message (or tool message) that consecutive items of its side are gathered in.
  let assistant: AssistantContentPart[] | undefined;
  let tool: ToolResultPart[] | undefined;
  input.forEach((value, index) => {
    const path = `input[${index}]`;
    const item = requireObject(value, path, 'an input item');
    const type = item.type ?? (item.role !== undefined ? 'message' : undefined);
    if (type === 'message' && item.role !== 'assistant') {
      assistant = undefined;
      tool = undefined;
      result.push(inputMessageFromResponses(item, path));
      return;
    }
    if (type === 'function_call_output') {
      assistant = undefined;
      if (tool === undefined) {
        tool = [];
        result.push({ role: 'tool', content: tool });
      }
      tool.push(functionOutputFromResponses(item, path, toolNames));
      return;
    }
    if (type === 'message' || type === 'function_call' || type === 'reasoning') {
      tool = undefined;
      if (assistant === undefined) {
        assistant = [];
        result.push({ role: 'assistant', content: assistant });
      }
      if (type === 'message') assistant.push(...assistantPartsFromResponses(item, path));
      else if (type === 'function_call')
        assistant.push(functionCallFromResponses(item, path, toolNames));
      else assistant.push(reasoningFromResponses(item, path));
      return;
    }
    if (typeof type === 'string') {
      throw new UnsupportedFormatError({
        message: `Unsupported Responses item type ${JSON.stringify(type)} at ${path} (ctxmem reads messages, function_call, function_call_output and reasoning items)`,
      });
    }
    fail(
      path,
      `expected an item with a "type" or a "role" (keys ${Object.keys(item).join(', ') || 'none'})`,
    );
  });
  return result;
}

function inputMessageFromResponses(item: Item, path: string): SystemMessage | UserMessage {
  const role = item.role;
  if (role !== 'system' && role !== 'developer' && role !== 'user') {
    fail(
      `${path}.role`,
      role === 'tool'
        ? 'role "tool" is not a Responses role; send tool results as function_call_output items'
        : `expected user, assistant, system or developer, got ${typeof role === 'string' ? JSON.stringify(role) : describeValue(role)}`,
    );
  }
  const marker: Marker = {
    typed: item.type === 'message' ? true : undefined,
    item: extraFields(item, ['type', 'role', 'content']),
  };
  if (role === 'user') {
    if (typeof item.content === 'string') {
      return { role: 'user', content: item.content, ...withMarker(marker) };
    }
    if (!Array.isArray(item.content)) {
      fail(
        `${path}.content`,
        `expected a string or content parts, got ${describeValue(item.content)}`,
      );
    }
    const content = item.content.map((part, index) =>
      userPartFromResponses(part, `${path}.content[${index}]`),
    );
    return { role: 'user', content, ...withMarker(marker) };
  }
  if (role === 'developer') marker.role = 'developer';
  let content: string;
  if (typeof item.content === 'string') {
    content = item.content;
  } else if (Array.isArray(item.content)) {
    const parts = item.content.map((value, index) => {
      const at = `${path}.content[${index}]`;
      const part = requireObject(value, at, 'a content part');
      if (part.type !== 'input_text') {
        fail(
          `${at}.type`,
          `a ${String(role)} message takes input_text parts, got ${describeValue(part.type)}`,
        );
      }
      return {
        text: requireString(part.text, `${at}.text`),
        extra: extraFields(part, ['type', 'text']),
      };
    });
    content = parts.map((part) => part.text).join('\n');
    marker.content = 'parts';
    marker.parts = parts.map(({ text, extra }) => ({
      length: text.length,
      ...(extra ? { extra } : {}),
    }));
  } else {
    fail(
      `${path}.content`,
      `expected a string or input_text parts, got ${describeValue(item.content)}`,
    );
  }
  return { role: 'system', content, ...withMarker(marker) };
}

function userPartFromResponses(value: unknown, path: string): UserContentPart {
  const part = requireObject(value, path, 'a content part');
  switch (part.type) {
    case 'input_text':
      return {
        type: 'text',
        text: requireString(part.text, `${path}.text`),
        ...withMarker({ extra: extraFields(part, ['type', 'text']) }),
      };
    case 'input_image': {
      const extra = extraFields(part, ['type', 'image_url', 'file_id']);
      if (typeof part.image_url === 'string') {
        const mediaType = dataUrlMediaType(part.image_url);
        return {
          type: 'image',
          image: part.image_url,
          ...(mediaType ? { mediaType } : {}),
          ...withMarker({ extra }),
        };
      }
      if (typeof part.file_id === 'string') {
        return { type: 'image', image: part.file_id, ...withMarker({ extra, source: 'file_id' }) };
      }
      return fail(path, 'an input_image part needs an image_url or file_id string');
    }
    case 'input_file': {
      const extra = extraFields(part, ['type', 'file_data', 'file_id', 'file_url', 'filename']);
      const filename = typeof part.filename === 'string' ? { filename: part.filename } : {};
      let data: string;
      let source: Marker['source'];
      if (typeof part.file_data === 'string') data = part.file_data;
      else if (typeof part.file_id === 'string') {
        data = part.file_id;
        source = 'file_id';
      } else if (typeof part.file_url === 'string') {
        data = part.file_url;
        source = 'file_url';
      } else return fail(path, 'an input_file part needs a file_data, file_id or file_url string');
      // Ids and URLs carry no type; PDF is what the Responses API takes as input files.
      const mediaType =
        (source === undefined ? dataUrlMediaType(data) : undefined) ?? 'application/pdf';
      return { type: 'file', data, mediaType, ...filename, ...withMarker({ extra, source }) };
    }
    default:
      return fail(
        `${path}.type`,
        `unsupported user content part type ${typeof part.type === 'string' ? JSON.stringify(part.type) : describeValue(part.type)} (expected input_text, input_image or input_file)`,
      );
  }
}

function assistantPartsFromResponses(item: Item, path: string): AssistantContentPart[] {
  const first: Marker = {
    typed: item.type === 'message' ? true : undefined,
    item: extraFields(item, ['type', 'role', 'content']),
  };
  if (typeof item.content === 'string') {
    return [{ type: 'text', text: item.content, ...withMarker(first) }];
  }
  if (!Array.isArray(item.content)) {
    fail(
      `${path}.content`,
      `expected a string or output_text parts, got ${describeValue(item.content)}`,
    );
  }
  if (item.content.length === 0) {
    // Kept as an empty text so the item survives the round trip.
    return [{ type: 'text', text: '', ...withMarker({ ...first, content: 'parts' }) }];
  }
  return item.content.map((value, index) => {
    const at = `${path}.content[${index}]`;
    const part = requireObject(value, at, 'a content part');
    const marker: Marker = index === 0 ? { ...first, content: 'parts' } : { continued: true };
    if (part.type === 'refusal') {
      marker.partType = 'refusal';
      marker.extra = extraFields(part, ['type', 'refusal']) ?? {};
      return {
        type: 'text',
        text: requireString(part.refusal, `${at}.refusal`),
        ...withMarker(marker),
      };
    }
    if (part.type !== 'output_text' && part.type !== 'input_text') {
      fail(
        `${at}.type`,
        `an assistant message takes output_text or refusal parts, got ${describeValue(part.type)}`,
      );
    }
    if (part.type === 'input_text') marker.partType = 'input_text';
    // An empty object says "no annotations" (new text parts get `annotations: []`).
    marker.extra = extraFields(part, ['type', 'text']) ?? {};
    return { type: 'text', text: requireString(part.text, `${at}.text`), ...withMarker(marker) };
  });
}

function functionCallFromResponses(
  item: Item,
  path: string,
  toolNames: Map<string, string>,
): AssistantContentPart {
  const callId = requireString(item.call_id, `${path}.call_id`, { nonEmpty: true });
  const name = requireString(item.name, `${path}.name`, { nonEmpty: true });
  const text = requireString(item.arguments, `${path}.arguments`);
  toolNames.set(callId, name);
  const marker: Marker = { item: extraFields(item, ['type', 'call_id', 'name', 'arguments']) };
  let input: unknown = text;
  try {
    const parsed: unknown = JSON.parse(text);
    if (exceedsJsonDepth(parsed, MAX_MESSAGE_JSON_DEPTH)) marker.argumentsUnparsed = true;
    else {
      input = parsed;
      if (JSON.stringify(parsed) !== text) marker.arguments = text;
    }
  } catch {
    marker.argumentsUnparsed = true;
  }
  return { type: 'tool-call', toolCallId: callId, toolName: name, input, ...withMarker(marker) };
}

function reasoningFromResponses(item: Item, path: string): AssistantContentPart {
  const texts: string[] = [];
  for (const field of ['summary', 'content'] as const) {
    const list = item[field];
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list))
      fail(`${path}.${field}`, `expected an array, got ${describeValue(list)}`);
    list.forEach((entry, index) => {
      if (isPlainObject(entry) && typeof entry.text === 'string') texts.push(entry.text);
      else fail(`${path}.${field}[${index}]`, 'expected a part with a text string');
    });
  }
  if (exceedsJsonDepth(item, MAX_MESSAGE_JSON_DEPTH)) fail(path, 'nests too deep');
  return {
    type: 'reasoning',
    text: texts.join('\n'),
    ...withMarker({ reasoning: item as { [key: string]: JsonValue } }),
  };
}

function functionOutputFromResponses(
  item: Item,
  path: string,
  toolNames: Map<string, string>,
): ToolResultPart {
  const callId = requireString(item.call_id, `${path}.call_id`, { nonEmpty: true });
  let output: ToolResultOutput;
  if (typeof item.output === 'string') output = { type: 'text', value: item.output };
  else if (Array.isArray(item.output)) {
    output = {
      type: 'content',
      value: item.output.map((value, index) => {
        const part = requireObject(value, `${path}.output[${index}]`, 'an output part');
        if (part.type === 'input_text') {
          return {
            type: 'text',
            text: requireString(part.text, `${path}.output[${index}].text`),
            ...withMarker({ extra: extraFields(part, ['type', 'text']) }),
          };
        }
        if (typeof part.type !== 'string')
          fail(
            `${path}.output[${index}].type`,
            `expected a string, got ${describeValue(part.type)}`,
          );
        return part as { type: string; [key: string]: unknown };
      }),
    };
  } else {
    fail(`${path}.output`, `expected a string or output parts, got ${describeValue(item.output)}`);
  }
  const name = typeof item.name === 'string' ? item.name : toolNames.get(callId);
  return {
    type: 'tool-result',
    toolCallId: callId,
    toolName: name ?? '',
    output,
    ...withMarker({ item: extraFields(item, ['type', 'call_id', 'output']) }),
  };
}

// ---------------------------------------------------------------------------------------------
// core → Responses

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
 * (messages, reasoning, `function_call`), a tool message becomes `function_call_output` items.
 * Throws `UnsupportedFormatError` for parts the Responses API has no item for (assistant files,
 * tool approvals).
 */
export function toOpenAIResponses(
  messages: readonly Message[],
  { inputAsText = false }: ToOpenAIResponsesOptions = {},
): { instructions?: string; input: string | OpenAIResponsesItem[] } {
  const instructions: string[] = [];
  const input: Item[] = [];
  for (const message of messages) {
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
        input.push(...assistantToResponses(message));
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
  const lengths = marker.parts?.map((part) => part.length);
  // The parts are rebuilt only when the text is still what they were joined from.
  const total = lengths
    ? lengths.reduce((sum, length) => sum + length, 0) + lengths.length - 1
    : -1;
  if (marker.content === 'parts' && marker.parts && total === message.content.length) {
    let offset = 0;
    const content = marker.parts.map((part) => {
      const text = message.content.slice(offset, offset + part.length);
      offset += part.length + 1;
      return { type: 'input_text', text, ...part.extra };
    });
    return { ...head, content };
  }
  if (marker.content === 'parts')
    return { ...head, content: [{ type: 'input_text', text: message.content }] };
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

function assistantToResponses(message: AssistantMessage): Item[] {
  const messageMarker = markerOf(message);
  if (typeof message.content === 'string') {
    return [{ ...itemHead(messageMarker, 'assistant'), content: message.content }];
  }
  const items: Item[] = [];
  // The message item that following text parts marked `continued` join.
  let open: Item[] | undefined;
  for (const part of message.content) {
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
      const text =
        marker.argumentsUnparsed && typeof part.input === 'string'
          ? part.input
          : marker.arguments !== undefined && sameJson(marker.arguments, part.input)
            ? marker.arguments
            : JSON.stringify(part.input ?? {});
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
    throw new UnsupportedFormatError({
      message: `The Responses API has no input item for an assistant ${part.type} part`,
    });
  }
  return items;
}

function sameJson(text: string, value: unknown): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(value);
  } catch {
    return false;
  }
}

function functionOutputToResponses(part: ToolResultPart): Item {
  const marker = markerOf(part);
  const { output } = part;
  let value: unknown;
  switch (output.type) {
    case 'text':
    case 'error-text':
      value = output.value;
      break;
    case 'json':
    case 'error-json':
      value = JSON.stringify(output.value);
      break;
    case 'execution-denied':
      value = output.reason ?? 'The tool call was denied.';
      break;
    case 'content':
      value = output.value.map((entry) => {
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
      });
      break;
  }
  return { type: 'function_call_output', call_id: part.toolCallId, output: value, ...marker.item };
}

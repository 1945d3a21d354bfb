/** OpenAI Responses request bodies → ctxmem messages (see `index.ts`). */
import type {
  AssistantContentPart,
  JsonValue,
  Message,
  SystemMessage,
  ToolResultOutput,
  ToolResultPart,
  UserContentPart,
  UserMessage,
} from '../../contracts/index.js';
import { UnsupportedFormatError } from '../../errors/index.js';
import {
  dataUrlMediaType,
  extraFields,
  joinTextParts,
  parseToolArguments,
  requireObject,
  requireString,
} from '../converter-fields.js';
import {
  checkJsonValue,
  describeValue,
  exceedsJsonDepth,
  isPlainObject,
  MAX_MESSAGE_JSON_DEPTH,
} from '../json-values.js';
import { fail } from '../message-shape.js';
import { type Item, type Marker, withMarker } from './openai-responses-marker.js';

/**
 * Converts a Responses body's `instructions` and `input` to ctxmem messages. `input` may be a
 * string (one user message) or an array of items. Throws `InvalidMessageError` with the path of
 * the first malformed field (`input[3].call_id`) and `UnsupportedFormatError` naming item types
 * ctxmem cannot represent. A body is JSON: a value JSON cannot hold (a cycle, a BigInt, a
 * function, a hole) is an `InvalidMessageError` at its path too.
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
  // Unknown fields are carried along: checked up front, where the input paths are known.
  checkJsonValue(input, 'input');
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
    if (
      type === 'message' ||
      type === 'function_call' ||
      type === 'reasoning' ||
      type === 'compaction'
    ) {
      tool = undefined;
      if (assistant === undefined) {
        assistant = [];
        result.push({ role: 'assistant', content: assistant });
      }
      if (type === 'message') assistant.push(...assistantPartsFromResponses(item, path));
      else if (type === 'function_call')
        assistant.push(functionCallFromResponses(item, path, toolNames));
      else if (type === 'reasoning') assistant.push(reasoningFromResponses(item, path));
      else assistant.push(compactionFromResponses(item, path));
      return;
    }
    if (typeof type === 'string') {
      throw new UnsupportedFormatError({
        message: `Unsupported Responses item type ${JSON.stringify(type)} at ${path} (ctxmem reads messages, function_call, function_call_output, reasoning and compaction items)`,
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
    const joined = joinTextParts(
      item.content.map((value, index) => {
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
      }),
    );
    content = joined.content;
    marker.content = 'parts';
    marker.parts = joined.parts;
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
  const { input, ...argumentsMarker } = parseToolArguments(text);
  Object.assign(marker, argumentsMarker);
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

/** A compaction item: opaque (only OpenAI reads its `encrypted_content`), kept verbatim. */
function compactionFromResponses(item: Item, path: string): AssistantContentPart {
  if (exceedsJsonDepth(item, MAX_MESSAGE_JSON_DEPTH)) fail(path, 'nests too deep');
  return {
    type: 'custom',
    kind: 'openai.compaction',
    ...withMarker({ item: item as { [key: string]: JsonValue } }),
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

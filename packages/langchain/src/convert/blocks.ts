import {
  type AssistantContentPart,
  type CustomPart,
  type FilePart,
  type ImagePart,
  InvalidMessageError,
  type JsonValue,
  type TextPart,
  type UserContentPart,
} from '@ctxmem/core';
import { isPlainObject, type LangChainPartMarker, withMarker } from './marker.js';

/** A LangChain content block as read from a message: an object with a string `type`. */
export type Block = Record<string, unknown> & { type: string };

type JsonRecord = { [key: string]: JsonValue };

/** Block types whose text a core text part carries, and the field that holds it. */
const USER_TEXT_FIELDS: Readonly<Record<string, string>> = { text: 'text' };
const ASSISTANT_TEXT_FIELDS: Readonly<Record<string, string>> = {
  text: 'text',
  refusal: 'refusal',
};
const REASONING_FIELDS: Readonly<Record<string, string>> = {
  reasoning: 'reasoning',
  thinking: 'thinking',
};
const IMAGE_TYPES = new Set(['image', 'image_url', 'input_image']);
const FILE_TYPES = new Set([
  'audio',
  'input_audio',
  'video',
  'file',
  'text-plain',
  'document',
  'input_file',
]);

export function fail(path: string, problem: string): never {
  throw new InvalidMessageError({ message: `${path}: ${problem}`, path });
}

export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}

export function requireBlock(value: unknown, path: string): Block {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    fail(path, `expected a content block object, got ${describeValue(value)}`);
  }
  const block = value as Record<string, unknown>;
  if (typeof block.type !== 'string') {
    fail(`${path}.type`, `expected a block type string, got ${describeValue(block.type)}`);
  }
  return block as Block;
}

/** `block` without `field`. */
function without(block: Block, field: string): JsonRecord {
  const { [field]: _payload, ...rest } = block;
  return rest as JsonRecord;
}

function dataUrlMediaType(url: string): string | undefined {
  return /^data:([^;,]+)[;,]/i.exec(url)?.[1];
}

/**
 * The data a media block carries, as core keeps it in an image or file part: a URL, base64 data,
 * bytes, a provider file id or inline text. `undefined` when the block has none of them.
 */
export function mediaPayload(block: Block): string | Uint8Array | undefined {
  if (block.type === 'image_url') {
    const image = block.image_url;
    if (typeof image === 'string') return image;
    return isPlainObject(image) && typeof image.url === 'string' ? image.url : undefined;
  }
  if (block.type === 'input_audio' && isPlainObject(block.input_audio)) {
    const data = block.input_audio.data;
    return typeof data === 'string' ? data : undefined;
  }
  if (typeof block.url === 'string') return block.url;
  if (typeof block.data === 'string' || block.data instanceof Uint8Array) return block.data;
  if (typeof block.fileId === 'string') return block.fileId;
  if (typeof block.file_id === 'string') return block.file_id;
  if (block.source_type === 'id' && typeof block.id === 'string') return block.id;
  if (typeof block.image_url === 'string') return block.image_url;
  if (isPlainObject(block.source)) {
    const source = block.source;
    if (typeof source.data === 'string') return source.data;
    if (typeof source.url === 'string') return source.url;
    if (typeof source.file_id === 'string') return source.file_id;
  }
  if (typeof block.text === 'string') return block.text;
  return undefined;
}

function mediaTypeOf(block: Block, payload: string | Uint8Array): string | undefined {
  for (const key of ['mimeType', 'mime_type', 'media_type']) {
    if (typeof block[key] === 'string') return block[key] as string;
  }
  if (isPlainObject(block.source) && typeof block.source.media_type === 'string') {
    return block.source.media_type;
  }
  return typeof payload === 'string' ? dataUrlMediaType(payload) : undefined;
}

function defaultFileMediaType(type: string): string {
  if (type === 'audio' || type === 'input_audio') return 'audio/*';
  if (type === 'video') return 'video/*';
  if (type === 'text-plain') return 'text/plain';
  if (type === 'image' || type === 'image_url' || type === 'input_image') return 'image/*';
  return 'application/octet-stream';
}

/** A user block core has no part for: an empty text part that brings the block back verbatim. */
function opaquePart(block: Block): TextPart {
  return { type: 'text', text: '', ...withMarker({ opaque: true, block: block as JsonRecord }) };
}

/**
 * An AI message block core has no part for (a `redacted_thinking` or `compaction` block, a
 * provider's server tool block): an opaque `custom` part that brings the block back verbatim.
 * Core keeps opaque parts whole and in place (see `isOpaquePart`).
 */
function customPart(block: Block): CustomPart {
  return {
    type: 'custom',
    kind: `langchain.${block.type}`,
    ...withMarker({ opaque: true, block: block as JsonRecord }),
  };
}

function textPart(block: Block, field: string): TextPart | undefined {
  const text = block[field];
  if (typeof text !== 'string') return undefined;
  const rest = without(block, field);
  // A bare `{ type: 'text', text }` needs no marker.
  const plain = block.type === 'text' && Object.keys(rest).length === 1;
  return { type: 'text', text, ...(plain ? {} : withMarker({ block: rest })) };
}

function filePart(block: Block, payload: string | Uint8Array): FilePart {
  return {
    type: 'file',
    data: payload,
    mediaType: mediaTypeOf(block, payload) ?? defaultFileMediaType(block.type),
    ...(typeof block.filename === 'string' ? { filename: block.filename } : {}),
    ...withMarker({ block: block as JsonRecord }),
  };
}

/** A block of a human message as a core user part. */
export function userPartFromBlock(value: unknown, path: string): UserContentPart {
  const block = requireBlock(value, path);
  const field = USER_TEXT_FIELDS[block.type];
  if (field !== undefined) return textPart(block, field) ?? opaquePart(block);
  const payload = mediaPayload(block);
  if (payload === undefined) return opaquePart(block);
  if (IMAGE_TYPES.has(block.type)) {
    const mediaType = mediaTypeOf(block, payload);
    const image: ImagePart = {
      type: 'image',
      image: payload,
      ...(mediaType ? { mediaType } : {}),
      ...withMarker({ block: block as JsonRecord }),
    };
    return image;
  }
  if (FILE_TYPES.has(block.type)) return filePart(block, payload);
  return opaquePart(block);
}

/** A block of an AI message as a core assistant part. */
export function assistantPartFromBlock(value: unknown, path: string): AssistantContentPart {
  const block = requireBlock(value, path);
  const field = ASSISTANT_TEXT_FIELDS[block.type];
  if (field !== undefined) return textPart(block, field) ?? customPart(block);
  const reasoningField = REASONING_FIELDS[block.type];
  if (reasoningField !== undefined) {
    const text = block[reasoningField];
    if (typeof text !== 'string') return customPart(block);
    return {
      type: 'reasoning',
      text,
      ...withMarker({ block: without(block, reasoningField) }),
    };
  }
  const payload = mediaPayload(block);
  if (payload !== undefined && (IMAGE_TYPES.has(block.type) || FILE_TYPES.has(block.type))) {
    return filePart(block, payload);
  }
  // Anthropic's `tool_use` block repeats a call of `tool_calls`, which core carries as a
  // tool-call part: it rides along as an empty text part, counted once (as the call).
  if (block.type === 'tool_use') return opaquePart(block);
  return customPart(block);
}

/** The LangChain block of a core custom part: the original block, or none for other origins. */
export function blockFromCustomPart(marker: LangChainPartMarker): Block | undefined {
  return marker.opaque === true ? originalBlock(marker) : undefined;
}

/** A text block of a tool message as a content item of a core tool result. */
export function toolItemFromBlock(
  value: unknown,
  path: string,
): { type: 'text'; text: string } | Block {
  const block = requireBlock(value, path);
  if (block.type === 'text' && typeof block.text === 'string') {
    const part = textPart(block, 'text');
    if (part) return part as { type: 'text'; text: string };
  }
  // Tool result items may be any typed object: other blocks are carried as they are.
  return block;
}

// ---------------------------------------------------------------------------------------------
// core → LangChain

function originalBlock(marker: LangChainPartMarker): Block | undefined {
  return isPlainObject(marker.block) && typeof marker.block.type === 'string'
    ? (marker.block as Block)
    : undefined;
}

/** The LangChain block for a core text part. */
export function blockFromTextPart(part: TextPart, marker: LangChainPartMarker): Block {
  const original = originalBlock(marker);
  if (original) {
    if (marker.opaque === true && part.text === '') return original;
    const field = ASSISTANT_TEXT_FIELDS[original.type];
    if (field !== undefined && marker.opaque !== true) return { ...original, [field]: part.text };
  }
  return { type: 'text', text: part.text };
}

/** The LangChain block for a core reasoning part. */
export function blockFromReasoningPart(
  part: { text: string; providerOptions?: Record<string, unknown> },
  marker: LangChainPartMarker,
): Block {
  const original = originalBlock(marker);
  const field = original ? REASONING_FIELDS[original.type] : undefined;
  if (original && field !== undefined) return { ...original, [field]: part.text };
  return { type: 'reasoning', reasoning: part.text };
}

function base64Of(data: Uint8Array | ArrayBuffer): string {
  return Buffer.from(data instanceof ArrayBuffer ? new Uint8Array(data) : data).toString('base64');
}

/** The LangChain block for a core image or file part. */
export function blockFromMediaPart(part: ImagePart | FilePart, marker: LangChainPartMarker): Block {
  const data = part.type === 'image' ? part.image : part.data;
  const original = originalBlock(marker);
  if (original && mediaPayload(original) === data) return original;
  const mediaType = part.mediaType;
  const type =
    part.type === 'image' || mediaType?.startsWith('image/')
      ? 'image'
      : mediaType?.startsWith('audio/')
        ? 'audio'
        : mediaType?.startsWith('video/')
          ? 'video'
          : 'file';
  const known = mediaType && !mediaType.endsWith('/*') ? { mimeType: mediaType } : {};
  const filename =
    part.type === 'file' && part.filename !== undefined
      ? { metadata: { filename: part.filename } }
      : {};
  if (data instanceof URL) return { type, url: data.href, ...known, ...filename };
  if (typeof data === 'string') {
    // Base64 never contains a colon; anything with a scheme is a URL (data URLs included).
    return data.includes(':')
      ? { type, url: data, ...known, ...filename }
      : { type, data, ...known, ...filename };
  }
  return { type, data: base64Of(data), ...known, ...filename };
}

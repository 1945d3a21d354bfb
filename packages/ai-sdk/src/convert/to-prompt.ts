import type { DataContent, Message, ProviderOptions } from '@ctxmem/core';
import { type PromptPartMarker, readMarker, referenceData } from './part-marker.js';
import type {
  PromptProviderOptions,
  PromptVersion,
  V3Message,
  V3Prompt,
  V4FileData,
  V4Message,
  V4Prompt,
} from './prompt-types.js';

type PartRecord = Record<string, unknown> & { type: string };

const optionsOf = (part: PartRecord) => part.providerOptions as ProviderOptions | undefined;

const BASE64_DATA_URL = /^data:([^;,]*)(?:;[^,]*)?;base64,(.*)$/s;

/**
 * Core data as V4 tagged file data. Strings are base64 (which never contains `:`) unless they are
 * an http(s) URL or a base64 data URL, as in histories written by other tools.
 */
function taggedData(data: DataContent, originalUrl: string | undefined): V4FileData {
  if (data instanceof URL) {
    return { type: 'url', url: data, ...(originalUrl === undefined ? {} : { originalUrl }) };
  }
  if (data instanceof ArrayBuffer) return { type: 'data', data: new Uint8Array(data) };
  if (typeof data === 'string' && data.includes(':')) {
    const dataUrl = BASE64_DATA_URL.exec(data);
    if (dataUrl) return { type: 'data', data: dataUrl[2]! };
    if (/^https?:\/\//i.test(data) && URL.canParse(data))
      return { type: 'url', url: new URL(data) };
  }
  return { type: 'data', data: data as Uint8Array | string };
}

function rawData(data: DataContent): Uint8Array | string | URL {
  return data instanceof ArrayBuffer ? new Uint8Array(data) : data;
}

function optionsField(providerOptions: PromptProviderOptions | undefined) {
  return providerOptions === undefined ? {} : { providerOptions };
}

function toFilePart(
  part: PartRecord,
  marker: PromptPartMarker | undefined,
  providerOptions: PromptProviderOptions | undefined,
  version: PromptVersion,
): PartRecord {
  const { data, image, providerOptions: _options, ...rest } = part;
  const source = (part.type === 'image' ? image : data) as DataContent;
  const mediaType =
    part.type === 'image' ? ((part.mediaType as string | undefined) ?? 'image') : part.mediaType;
  const reference = marker ? referenceData(marker) : undefined;
  if (version === 'v3') {
    return {
      ...rest,
      type: 'file',
      mediaType,
      data: reference ?? rawData(source),
      ...optionsField(providerOptions),
    };
  }
  return {
    ...rest,
    type: marker?.part === 'reasoning-file' ? 'reasoning-file' : 'file',
    mediaType,
    data: reference ?? taggedData(source, marker?.originalUrl),
    ...optionsField(providerOptions),
  };
}

function toPart(part: PartRecord, version: PromptVersion): PartRecord {
  switch (part.type) {
    case 'file':
    case 'image': {
      const { marker, providerOptions } = readMarker(optionsOf(part));
      // V3 file parts and core file parts have the same shape.
      if (
        version === 'v3' &&
        part.type === 'file' &&
        !marker &&
        !(part.data instanceof ArrayBuffer)
      ) {
        return part;
      }
      return toFilePart(part, marker, providerOptions, version);
    }
    case 'text': {
      const { marker, providerOptions } = readMarker(optionsOf(part));
      if (!marker) return part;
      if (!marker.file) {
        const { providerOptions: _options, ...rest } = part;
        return { ...rest, ...optionsField(providerOptions) };
      }
      const { text, providerOptions: _options, ...rest } = part;
      return {
        ...rest,
        type: 'file',
        data: { type: 'text', text: text as string },
        mediaType: marker.file.mediaType,
        ...(marker.file.filename === undefined ? {} : { filename: marker.file.filename }),
        ...optionsField(providerOptions),
      };
    }
    default:
      return part;
  }
}

function toMessage(message: Message, version: PromptVersion): V4Message | V3Message {
  const { id: _id, name: _name, ctxmem: _ctxmem, ...rest } = message;
  // Prompt messages have none of core's own fields: such messages need no copy.
  const bare = !('id' in message) && !('name' in message) && !('ctxmem' in message);
  const base = (bare ? message : rest) as Record<string, unknown> & { role: string };
  if (message.role === 'system') return base as unknown as V4Message;
  const content = message.content as string | PartRecord[];
  if (typeof content === 'string') {
    // Core allows string content; prompts always have parts.
    return { ...base, content: [{ type: 'text', text: content }] } as unknown as V4Message;
  }
  let parts: PartRecord[] | undefined;
  for (let index = 0; index < content.length; index++) {
    const part = content[index]!;
    const converted = toPart(part, version);
    if (converted !== part) {
      parts ??= content.slice();
      parts[index] = converted;
    }
  }
  // AI SDK 6 prompts have no custom parts (provider records such as `anthropic.message_start`
  // from an AI SDK 7 stream): an AI SDK 6 model gets the message without them.
  if (version === 'v3' && content.some((part) => part.type === 'custom')) {
    parts = (parts ?? content).filter((part) => part.type !== 'custom');
  }
  if (!parts && bare) return message as unknown as V4Message;
  return { ...base, content: parts ?? content } as unknown as V4Message;
}

/**
 * Writes core messages as an AI SDK 7 prompt (`LanguageModelV4Prompt`): drops `id`, `name` and
 * `ctxmem` metadata, gives string content its text part, turns core file data into tagged file
 * data and reads the markers `fromV4Prompt` left. Messages that need no change are returned as
 * the same objects, so `toV4Prompt(fromV4Prompt(prompt))` is deep-equal to `prompt`.
 */
export function toV4Prompt(messages: readonly Message[]): V4Prompt {
  return messages.map((message) => toMessage(message, 'v4') as V4Message);
}

/** Writes core messages as an AI SDK 6 prompt (`LanguageModelV3Prompt`); see `toV4Prompt`. */
export function toV3Prompt(messages: readonly Message[]): V3Prompt {
  return messages.map((message) => toMessage(message, 'v3') as V3Message);
}

/** Writes one core message as a prompt message of `version`. */
export function toPromptMessage(message: Message, version: PromptVersion): V4Message | V3Message {
  return toMessage(message, version);
}

/**
 * What the OpenAI Chat converter keeps of a request that has no place in ctxmem's messages (the
 * `OpenAIChatMarker` in `providerOptions.openaiChat`), and the field checks both directions share.
 */
import type { JsonValue, ProviderOptions } from '../contracts/index.js';
import { InvalidMessageError } from '../errors/index.js';
import { describeValue, isPlainObject } from './json-values.js';

import { fail } from './message-shape.js';

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

export type Marker = OpenAIChatMarker;
export function markerOf(holder: { providerOptions?: ProviderOptions }): Marker {
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
export function withMarker(
  marker: Marker,
  others?: ProviderOptions,
): { providerOptions?: ProviderOptions } {
  return withMarkerUnder(OPENAI_CHAT_OPTIONS_KEY, marker, others);
}

/**
 * `providerOptions` holding a converter's `marker` under `key` (and `others`), or nothing when both
 * are empty: undefined fields are left out, so an unmarked message stays unmarked.
 */
export function withMarkerUnder(
  key: string,
  marker: object,
  others?: ProviderOptions,
): { providerOptions?: ProviderOptions } {
  let kept: Record<string, JsonValue> | undefined;
  for (const [field, value] of Object.entries(marker)) {
    if (value === undefined) continue;
    kept ??= {};
    kept[field] = value as JsonValue;
  }
  if (kept === undefined) return others === undefined ? {} : { providerOptions: others };
  return { providerOptions: { ...others, [key]: kept } };
}

/** The fields of `value` not in `known`, or `undefined` when there are none. */
export function extraFields(
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

export function requireObject(value: unknown, path: string, what: string): Record<string, unknown> {
  if (!isPlainObject(value)) fail(path, `expected ${what}, got ${describeValue(value)}`);
  return value;
}

export function requireString(value: unknown, path: string, { nonEmpty = false } = {}): string {
  if (typeof value !== 'string') fail(path, `expected a string, got ${describeValue(value)}`);
  if (nonEmpty && value.length === 0) fail(path, 'must not be empty');
  return value;
}

export function optionalName(value: Record<string, unknown>, path: string): { name?: string } {
  return value.name === undefined ? {} : { name: requireString(value.name, `${path}.name`) };
}

/** The media type of a `data:` URL (`data:image/png;base64,…` → `image/png`). */
export function dataUrlMediaType(url: string): string | undefined {
  const match = /^data:([^;,]+)[;,]/i.exec(url);
  return match?.[1];
}

export function base64Of(data: Uint8Array | ArrayBuffer): string {
  return Buffer.from(data instanceof ArrayBuffer ? new Uint8Array(data) : data).toString('base64');
}

export function stringifyJson(value: unknown, path: string): string {
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

export function audioMediaType(format: string): string {
  if (format === 'wav') return 'audio/wav';
  if (format === 'mp3') return 'audio/mpeg';
  return `audio/${format}`;
}

export function audioFormat(mediaType: string): string {
  if (mediaType === 'audio/wav' || mediaType === 'audio/x-wav' || mediaType === 'audio/wave')
    return 'wav';
  if (mediaType === 'audio/mpeg' || mediaType === 'audio/mp3') return 'mp3';
  return mediaType.startsWith('audio/') ? mediaType.slice('audio/'.length) : mediaType;
}

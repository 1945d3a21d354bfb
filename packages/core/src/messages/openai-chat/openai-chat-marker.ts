/**
 * What the OpenAI Chat converter keeps of a request that has no place in ctxmem's messages (the
 * `OpenAIChatMarker` in `providerOptions.openaiChat`), and the helpers only this converter uses.
 */
import type { JsonValue, ProviderOptions } from '../../contracts/index.js';
import { requireString, withMarkerUnder } from '../converter-fields.js';
import { isPlainObject } from '../json-values.js';

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
  /** The original `arguments` text, when it is not the canonical JSON of the parsed value. */
  arguments?: string;
  /** `arguments` did not parse (or nested too deep), so `input` is the raw string. */
  argumentsUnparsed?: true;
  /** This text part was the assistant's `refusal` field, or a `refusal` content part. */
  refusal?: 'field' | 'part';
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

export function optionalName(value: Record<string, unknown>, path: string): { name?: string } {
  return value.name === undefined ? {} : { name: requireString(value.name, `${path}.name`) };
}

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

/**
 * What the Responses converter keeps of a request that has no place in ctxmem's messages (the
 * `OpenAIResponsesMarker` in `providerOptions.openaiResponses`), and the body and item types.
 */
import type { JsonValue, ProviderOptions } from '../../contracts/index.js';
import { withMarkerUnder } from '../converter-fields.js';
import { isPlainObject } from '../json-values.js';

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

export type Marker = OpenAIResponsesMarker;
export type Item = OpenAIResponsesItem;

/** The item types ctxmem reads; the Responses API has many more (built-in tools). */
export const OPENAI_RESPONSES_ITEM_TYPES: readonly string[] = [
  'message',
  'function_call',
  'function_call_output',
  'reasoning',
  'compaction',
];

export function markerOf(holder: { providerOptions?: ProviderOptions } | undefined): Marker {
  const marker = holder?.providerOptions?.[OPENAI_RESPONSES_OPTIONS_KEY];
  return isPlainObject(marker) ? (marker as Marker) : {};
}

export function withMarker(
  marker: Marker,
  others?: ProviderOptions,
): { providerOptions?: ProviderOptions } {
  return withMarkerUnder(OPENAI_RESPONSES_OPTIONS_KEY, marker, others);
}

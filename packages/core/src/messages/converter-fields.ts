/**
 * What the provider converters (OpenAI Chat, OpenAI Responses) share: the field checks that turn a
 * malformed request into an `InvalidMessageError` naming its path, and the bookkeeping that lets
 * a converted message be written back as the JSON it was read from (unknown fields, text parts
 * joined into one string, tool-call `arguments` text).
 */
import type { JsonValue, ProviderOptions } from '../contracts/index.js';
import { InvalidMessageError } from '../errors/index.js';
import {
  describeValue,
  exceedsJsonDepth,
  isPlainObject,
  MAX_MESSAGE_JSON_DEPTH,
} from './json-values.js';
import { fail } from './message-shape.js';

/** Unknown fields kept on a marker, passed through untouched. */
export type ExtraFields = { [key: string]: JsonValue };

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
): ExtraFields | undefined {
  let extra: ExtraFields | undefined;
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
// Text parts joined into one string (system messages: core has a string, the APIs take parts)

/** The length (and unknown fields) of one text part a string was joined from. */
export interface JoinedPart {
  length: number;
  extra?: ExtraFields;
}

/** Text parts joined with `\n` into the one string core keeps, and the lengths to split it again. */
export function joinTextParts(parts: ReadonlyArray<{ text: string; extra?: ExtraFields }>): {
  content: string;
  parts: JoinedPart[];
} {
  return {
    content: parts.map((part) => part.text).join('\n'),
    parts: parts.map(({ text, extra }) => ({ length: text.length, ...(extra ? { extra } : {}) })),
  };
}

/**
 * The text parts `content` was joined from (see `joinTextParts`), or one part holding all of it
 * when the content was rewritten since it was read and no longer splits at the recorded lengths.
 */
export function splitJoinedText(
  content: string,
  parts: readonly JoinedPart[] | undefined,
): Array<{ text: string; extra?: ExtraFields }> {
  const recorded = Array.isArray(parts) ? parts : [];
  const lengths = recorded.map((part) => part.length);
  const joined =
    lengths.reduce((sum, length) => sum + length, 0) + Math.max(recorded.length - 1, 0);
  let fits =
    joined === content.length && lengths.every((length) => Number.isInteger(length) && length >= 0);
  const pieces: Array<{ text: string; extra?: ExtraFields }> = [];
  let offset = 0;
  for (const part of fits ? recorded : []) {
    if (offset > 0 && content[offset - 1] !== '\n') fits = false;
    const text = content.slice(offset, offset + part.length);
    pieces.push(part.extra ? { text, extra: part.extra } : { text });
    offset += part.length + 1;
  }
  if (!fits || (recorded.length === 0 && content.length > 0)) return [{ text: content }];
  return pieces;
}

// ---------------------------------------------------------------------------------------------
// Tool-call `arguments` (JSON text in the APIs, a parsed value in core)

/** What a converter's marker keeps of a tool call's `arguments` text. */
export interface ArgumentsMarker {
  /** The original `arguments` text, when it is not the canonical JSON of the parsed value. */
  arguments?: string;
  /** `arguments` did not parse (or nested too deep), so `input` is the raw string. */
  argumentsUnparsed?: true;
}

/** A tool call's `arguments` text as core's `input`, with what it takes to write the text back. */
export function parseToolArguments(text: string): { input: unknown } & ArgumentsMarker {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { input: text, argumentsUnparsed: true };
  }
  // Deeper values would overflow JSON.stringify later; the raw text is safe to carry instead.
  // Nesting N levels deep takes at least 2N characters, so short text needs no depth walk.
  if (
    text.length > 2 * MAX_MESSAGE_JSON_DEPTH &&
    exceedsJsonDepth(parsed, MAX_MESSAGE_JSON_DEPTH)
  ) {
    return { input: text, argumentsUnparsed: true };
  }
  return JSON.stringify(parsed) === text ? { input: parsed } : { input: parsed, arguments: text };
}

/**
 * The `arguments` text of a tool call: the original text when the input still means the same,
 * else the input's JSON. Throws `InvalidMessageError` at `path` when the input is not JSON.
 */
export function toolArgumentsText(input: unknown, marker: ArgumentsMarker, path: string): string {
  if (marker.argumentsUnparsed === true && typeof input === 'string') return input;
  const text = stringifyJson(input, path);
  if (typeof marker.arguments === 'string' && sameJson(marker.arguments, text)) {
    return marker.arguments;
  }
  return text;
}

/** Whether `raw` is JSON text for the same value as the canonical `text`. */
function sameJson(raw: string, text: string): boolean {
  try {
    return JSON.stringify(JSON.parse(raw)) === text;
  } catch {
    return false;
  }
}

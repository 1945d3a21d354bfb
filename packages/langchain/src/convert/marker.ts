import type { JsonValue, ProviderOptions } from '@ctxmem/core';
import { withMarkerUnder } from '@ctxmem/core/adapter-kit';

/**
 * The `providerOptions` key under which the LangChain converters keep what the core message model
 * has no place for, so that a LangChain message comes back exactly as it went in.
 */
export const LANGCHAIN_OPTIONS_KEY = 'langchain';

/**
 * The `additional_kwargs` key that carries ctxmem's metadata (`{ kind, offloadIds, replaces }`)
 * on the LangChain messages ctxmem created (summary, injected memories, records, previews), so
 * that they are recognised when they come back. Provider integrations do not send unknown
 * `additional_kwargs` keys.
 */
export const CTXMEM_KWARGS_KEY = 'ctxmem';

type JsonRecord = { [key: string]: JsonValue };

/**
 * What a converted message remembers about its LangChain form. Every field is optional and set
 * only when the default conversion back would not reproduce the input. Markers are hints: when a
 * strategy rewrites a message, the output follows the new content and ignores what no longer fits.
 */
export interface LangChainMessageMarker {
  /** The role of a `ChatMessage` (type `generic`). */
  role?: string;
  /** `additional_kwargs`, without ctxmem's own key. */
  additionalKwargs?: JsonRecord;
  responseMetadata?: JsonRecord;
  /** An AI message's `usage_metadata`. */
  usageMetadata?: JsonRecord;
  /** An AI message's `invalid_tool_calls`: core has no place for calls whose arguments did not parse. */
  invalidToolCalls?: JsonValue[];
  /** The AI message's content was a string; core holds it as a text part beside the tool calls. */
  stringContent?: true;
  /** The AI message's content was an empty array (without it, no blocks means an empty string). */
  emptyBlocks?: true;
  /** A system message's content blocks, restored while their joined text is unchanged. */
  systemBlocks?: JsonValue[];
  /** A tool message's `status`. */
  status?: 'success' | 'error';
  /** A tool message's `artifact` (kept when it is plain data). */
  artifact?: JsonValue;
  /** A tool message's `metadata`. */
  metadata?: JsonRecord;
  /** The tool message had no `name`; core's tool name was taken from the call. */
  nameAbsent?: true;
}

/** What a converted content part or tool call remembers about its LangChain form. */
export interface LangChainPartMarker {
  /**
   * The original content block. For text-like blocks (text, reasoning, thinking, refusal) the
   * field whose text the core part carries is left out, so edits of that text flow back.
   */
  block?: JsonRecord;
  /** A block core has no part for, held as an empty text part (user messages) or an opaque
   * `custom` part (AI messages), and restored verbatim. */
  opaque?: true;
  /** Fields of the tool call besides `id`, `name` and `args` (for example `type`). */
  call?: JsonRecord;
  /** The tool call had no `id`. */
  idAbsent?: true;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** `providerOptions` holding `marker` (and `others`), or nothing when both are empty. */
export function withMarker(
  marker: LangChainMessageMarker | LangChainPartMarker,
  others?: ProviderOptions,
): { providerOptions?: ProviderOptions } {
  return withMarkerUnder(LANGCHAIN_OPTIONS_KEY, marker, others);
}

/** The marker a message or part carries (an empty object when it has none). */
export function markerOf<Marker extends LangChainMessageMarker | LangChainPartMarker>(holder: {
  providerOptions?: ProviderOptions;
}): Marker {
  const marker = holder.providerOptions?.[LANGCHAIN_OPTIONS_KEY];
  return (isPlainObject(marker) ? marker : {}) as unknown as Marker;
}

/** `providerOptions` without the LangChain marker, or `undefined` when nothing else is left. */
export function otherOptions(
  providerOptions: ProviderOptions | undefined,
): ProviderOptions | undefined {
  if (providerOptions === undefined || !(LANGCHAIN_OPTIONS_KEY in providerOptions)) {
    return providerOptions;
  }
  const { [LANGCHAIN_OPTIONS_KEY]: _marker, ...rest } = providerOptions;
  return Object.keys(rest).length === 0 ? undefined : rest;
}

/**
 * Whether `value` survives a JSON round trip through a store (plain objects, arrays, strings,
 * finite numbers, booleans, null, and bytes, which the stores encode).
 */
export function isStorableData(value: unknown, depth = 0): boolean {
  if (depth > 64) return false;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (value instanceof Uint8Array) return true;
  if (Array.isArray(value)) return value.every((item) => isStorableData(item, depth + 1));
  if (isPlainObject(value)) {
    return Object.values(value).every(
      (item) => item === undefined || isStorableData(item, depth + 1),
    );
  }
  return false;
}

/** `record` without undefined values, or `undefined` when it is empty. */
export function nonEmpty(record: Record<string, unknown> | undefined): JsonRecord | undefined {
  if (record === undefined) return undefined;
  let result: JsonRecord | undefined;
  for (const [key, value] of Object.entries(record)) {
    if (value === undefined) continue;
    result ??= {};
    result[key] = value as JsonValue;
  }
  return result;
}

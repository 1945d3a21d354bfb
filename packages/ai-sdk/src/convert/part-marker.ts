import type { JsonValue, ProviderOptions } from '@ctxmem/core';
import type { PromptProviderOptions, V4FileData } from './prompt-types.js';

/**
 * The `providerOptions` key under which the prompt converters keep what the core message model
 * has no place for. It is removed again before a prompt reaches a provider.
 */
export const AI_SDK_PROMPT_OPTIONS_KEY = 'ctxmemAiSdk';

/**
 * What a converted part remembers about its prompt form. Every field is optional and set only
 * when the default conversion back would not reproduce the input. Markers are hints: a strategy
 * that rewrites a part drops them, and the output then follows the new content.
 */
export interface PromptPartMarker {
  /** The core file part was a V4 `reasoning-file` part. */
  part?: 'reasoning-file';
  /** V4 file data that is neither bytes nor a URL: a provider reference. */
  reference?: Record<string, string>;
  /** The core text part was a V4 file part with inline text data. */
  file?: { mediaType: string; filename?: string };
  /** `originalUrl` of V4 URL file data. */
  originalUrl?: string;
  /** The prompt part had no `providerOptions`: the marker's holder is dropped on the way back. */
  bare?: true;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `providerOptions` holding `marker` next to the part's own options. */
export function withMarker(
  providerOptions: PromptProviderOptions | undefined,
  marker: PromptPartMarker,
): ProviderOptions {
  const stored: PromptPartMarker =
    providerOptions === undefined ? { ...marker, bare: true } : marker;
  return {
    ...(providerOptions as ProviderOptions | undefined),
    [AI_SDK_PROMPT_OPTIONS_KEY]: stored as Record<string, JsonValue>,
  };
}

/**
 * The marker of a part and its `providerOptions` without it. Values under the key that are not a
 * well-formed marker are treated as the user's own options and left alone.
 */
export function readMarker(providerOptions: ProviderOptions | undefined): {
  marker?: PromptPartMarker;
  providerOptions?: PromptProviderOptions;
} {
  const value = providerOptions?.[AI_SDK_PROMPT_OPTIONS_KEY];
  if (!isPlainObject(value) || !isMarker(value)) {
    return providerOptions === undefined
      ? {}
      : { providerOptions: providerOptions as PromptProviderOptions };
  }
  const { [AI_SDK_PROMPT_OPTIONS_KEY]: _marker, ...rest } = providerOptions as ProviderOptions;
  const marker = value as PromptPartMarker;
  if (marker.bare && Object.keys(rest).length === 0) return { marker };
  return { marker, providerOptions: rest as PromptProviderOptions };
}

const MARKER_FIELDS = new Set(['part', 'reference', 'file', 'originalUrl', 'bare']);

function isMarker(value: Record<string, unknown>): boolean {
  const keys = Object.keys(value);
  if (keys.length === 0 || keys.some((key) => !MARKER_FIELDS.has(key))) return false;
  if (value.part !== undefined && value.part !== 'reasoning-file') return false;
  if (value.reference !== undefined && !isPlainObject(value.reference)) return false;
  if (value.file !== undefined) {
    if (!isPlainObject(value.file) || typeof value.file.mediaType !== 'string') return false;
  }
  if (value.originalUrl !== undefined && typeof value.originalUrl !== 'string') return false;
  return value.bare === undefined || value.bare === true;
}

/** The V4 reference file data a marker stands for. */
export function referenceData(marker: PromptPartMarker): V4FileData | undefined {
  if (!marker.reference) return undefined;
  return { type: 'reference', reference: marker.reference as Record<string, string> };
}

/**
 * What the Anthropic converter keeps of a body that core has no field for: the block fields in
 * `providerOptions.anthropic.extra`, and the body's type.
 */
import type { JsonValue, ProviderOptions } from '../../contracts/index.js';
import { isPlainObject } from '../json-values.js';

/** The `providerOptions` key under which the Anthropic converter keeps what core has no field for. */
export const ANTHROPIC_OPTIONS_KEY = 'anthropic';

export type Block = Record<string, unknown>;

/** An Anthropic Messages body as far as ctxmem reads it; every other field is kept as it is. */
export interface AnthropicMessagesBody {
  system?: string | Block[];
  messages: Array<{ role: 'user' | 'assistant'; content: string | Block[] }>;
  [key: string]: unknown;
}

const KNOWN_FIELDS: Record<string, readonly string[]> = {
  text: ['type', 'text'],
  image: ['type', 'source'],
  document: ['type', 'source'],
  tool_use: ['type', 'id', 'name', 'input'],
  tool_result: ['type', 'tool_use_id', 'content', 'is_error'],
  thinking: ['type', 'thinking', 'signature'],
  redacted_thinking: ['type', 'data'],
};

export function extraOf(block: Block): ProviderOptions | undefined {
  const known = KNOWN_FIELDS[block.type as string] ?? ['type'];
  const extra: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(block)) {
    if (!known.includes(key)) extra[key] = value as JsonValue;
  }
  return Object.keys(extra).length === 0 ? undefined : { [ANTHROPIC_OPTIONS_KEY]: { extra } };
}

export function withExtra<Part extends object>(part: Part, block: Block): Part {
  const providerOptions = extraOf(block);
  return providerOptions ? { ...part, providerOptions } : part;
}

export function extraBack(providerOptions: ProviderOptions | undefined): Block {
  const extra = providerOptions?.[ANTHROPIC_OPTIONS_KEY]?.extra;
  return isPlainObject(extra) ? extra : {};
}

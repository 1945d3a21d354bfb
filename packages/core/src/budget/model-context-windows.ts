import { InvalidArgumentError } from '../errors/index.js';

/**
 * Context windows (input + output tokens) of common models, keyed by model-id prefix. Lookups
 * match the longest key that is a prefix of the normalised id and ends at a word boundary, so
 * dated and suffixed ids (`gpt-4o-2024-08-06`, `claude-3-5-sonnet-latest`) resolve too. Where a
 * model is served with different windows, the smaller, commonly available one is listed: a budget
 * computed from a too-large window would overflow, one from a too-small window only compacts early.
 */
export const MODEL_CONTEXT_WINDOWS: Readonly<Record<string, number>> = {
  // OpenAI
  'gpt-5': 400_000,
  'gpt-5-chat': 128_000,
  'gpt-4.1': 1_047_576,
  'gpt-4o': 128_000,
  'chatgpt-4o': 128_000,
  'gpt-4-turbo': 128_000,
  'gpt-4-1106': 128_000,
  'gpt-4-0125': 128_000,
  'gpt-4-32k': 32_768,
  'gpt-4': 8_192,
  'gpt-3.5-turbo': 16_385,
  'gpt-3.5-turbo-instruct': 4_096,
  'gpt-oss': 131_072,
  o1: 200_000,
  'o1-mini': 128_000,
  'o1-preview': 128_000,
  o3: 200_000,
  'o3-mini': 200_000,
  'o4-mini': 200_000,
  // Anthropic
  'claude-3': 200_000,
  'claude-3.5': 200_000,
  'claude-3.7': 200_000,
  'claude-sonnet-4': 200_000,
  'claude-opus-4': 200_000,
  'claude-haiku-4': 200_000,
  'claude-2': 100_000,
  // Google
  'gemini-1.5-pro': 2_097_152,
  'gemini-1.5-flash': 1_048_576,
  'gemini-2.0-flash': 1_048_576,
  'gemini-2.0-pro': 2_097_152,
  'gemini-2.5-pro': 1_048_576,
  'gemini-2.5-flash': 1_048_576,
  // Open models
  'llama-3': 8_192,
  'llama-3.1': 131_072,
  'llama-3.2': 131_072,
  'llama-3.3': 131_072,
  'llama-4': 131_072,
  'qwen2.5': 32_768,
  'qwen2.5-turbo': 1_000_000,
  qwen3: 32_768,
  'qwen3-coder': 262_144,
  'qwen3-max': 262_144,
  'deepseek-chat': 65_536,
  'deepseek-reasoner': 65_536,
  'deepseek-v3': 131_072,
  'deepseek-r1': 131_072,
  'mistral-large': 131_072,
  'mixtral-8x7b': 32_768,
  'mixtral-8x22b': 65_536,
  mixtral: 32_768,
};

/** Provider names written before a colon (`anthropic:claude-…`, the LangChain style). */
const PROVIDER_COLON_PREFIX =
  /^(?:openai|anthropic|google|google-genai|google-vertexai|vertex|vertexai|gemini|azure|azure-openai|bedrock|groq|together|togetherai|fireworks|openrouter|ollama|mistral|mistralai|deepseek|xai|cohere|perplexity|deepinfra|cerebras|lmstudio|huggingface):/;

/** Bedrock model ids: `anthropic.claude-…`, `us.anthropic.claude-…`, `meta.llama3-…`. */
const BEDROCK_PREFIX = /^(?:[a-z]{2}\.)?(?:anthropic|meta|mistral|amazon|cohere|deepseek|qwen)\./;

/**
 * Lower-cases, strips provider prefixes, and writes version dots as dashes (`gpt-4.1` →
 * `gpt-4-1`, `llama3.1` → `llama-3-1`) so that `claude-3.5-sonnet` and `claude-3-5-sonnet` match
 * the same key.
 */
function normalizeModelId(modelId: string): string {
  let id = modelId.trim().toLowerCase();
  id = id.replace(PROVIDER_COLON_PREFIX, '');
  // `openai/gpt-4o`, `models/gemini-2.5-pro`, `meta-llama/Llama-3.1-8B-Instruct`.
  const slash = id.lastIndexOf('/');
  if (slash !== -1) id = id.slice(slash + 1);
  id = id.replace(BEDROCK_PREFIX, '');
  id = id.replace(/^meta-(?=llama)/, '').replace(/^llama(?=\d)/, 'llama-');
  id = id.replace(/^qwen-(?=\d)/, 'qwen');
  return id.replace(/(\d)\.(\d)/g, '$1-$2');
}

/** A key matches when it is a prefix of the id that ends where a new word starts. */
function matchesPrefix(id: string, key: string): boolean {
  if (!id.startsWith(key)) return false;
  const next = id.charAt(key.length);
  return next === '' || /[-:@_.\s]/.test(next);
}

function lookup(id: string, table: Readonly<Record<string, number>>): number | undefined {
  let best: { length: number; window: number } | undefined;
  for (const [key, window] of Object.entries(table)) {
    const normalizedKey = normalizeModelId(key);
    if (!matchesPrefix(id, normalizedKey)) continue;
    if (!best || normalizedKey.length > best.length) {
      best = { length: normalizedKey.length, window };
    }
  }
  return best?.window;
}

/**
 * The context window of `modelId`, or `undefined` when the model is unknown (callers then require
 * an explicit `contextWindow`). `overrides` (same prefix matching) win over the built-in table.
 *
 * @example resolveContextWindow('openai/gpt-4o-2024-08-06') // 128000
 */
export function resolveContextWindow(
  modelId: string,
  overrides?: Readonly<Record<string, number>>,
): number | undefined {
  if (overrides) {
    for (const [key, window] of Object.entries(overrides)) {
      if (!Number.isInteger(window) || window <= 0) {
        throw new InvalidArgumentError({
          message: `The context window override for "${key}" must be a positive integer, got ${window}`,
          argument: 'overrides',
        });
      }
    }
  }
  const id = normalizeModelId(modelId);
  if (id === '') return undefined;
  return (overrides && lookup(id, overrides)) ?? lookup(id, MODEL_CONTEXT_WINDOWS);
}

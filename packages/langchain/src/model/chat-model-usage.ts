import type { ProviderUsage } from '@ctxmem/core';

/**
 * The provider's count of a chat model answer's input: `usage_metadata.input_tokens`, which
 * LangChain's integrations fill with every input token, cached ones included
 * (`@langchain/anthropic` adds `cache_read_input_tokens` and `cache_creation_input_tokens` to
 * `input_tokens`; OpenAI's `prompt_tokens` already holds its cached tokens). Undefined for
 * anything else (a string output, an answer without usage).
 */
export function providerUsageOfMessage(output: unknown): ProviderUsage | undefined {
  if (typeof output !== 'object' || output === null) return undefined;
  const usage = (output as { usage_metadata?: { input_tokens?: unknown } }).usage_metadata;
  const inputTokens = usage?.input_tokens;
  return typeof inputTokens === 'number' && Number.isFinite(inputTokens) && inputTokens > 0
    ? { inputTokens }
    : undefined;
}

import type { CompleteResult, ProviderUsage } from '@ctxmem/core';
import { providerUsage, reportedUsage } from '@ctxmem/core/adapter-kit';

/** A chat model answer's `usage_metadata`, when it is a message that has one. */
function usageMetadata(output: unknown): { input_tokens?: unknown; output_tokens?: unknown } {
  if (typeof output !== 'object' || output === null) return {};
  const metadata = (output as { usage_metadata?: unknown }).usage_metadata;
  return typeof metadata === 'object' && metadata !== null ? metadata : {};
}

/** The token counts of a chat model answer (`usage_metadata`), for `CompleteResult.usage`. */
export function chatModelUsage(output: unknown): CompleteResult['usage'] {
  const { input_tokens, output_tokens } = usageMetadata(output);
  return reportedUsage(input_tokens, output_tokens);
}

/**
 * The provider's count of a chat model answer's input: `usage_metadata.input_tokens`, which
 * LangChain's integrations fill with every input token, cached ones included
 * (`@langchain/anthropic` adds `cache_read_input_tokens` and `cache_creation_input_tokens` to
 * `input_tokens`; OpenAI's `prompt_tokens` already holds its cached tokens). Undefined for
 * anything else (a string output, an answer without usage).
 */
export function providerUsageOfMessage(output: unknown): ProviderUsage | undefined {
  return providerUsage(usageMetadata(output).input_tokens);
}

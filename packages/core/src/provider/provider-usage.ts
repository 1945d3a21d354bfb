import type { CompleteResult } from '../contracts/index.js';

/**
 * What a provider reported about a request it answered, as far as ctxmem uses it: its count of
 * the input. Adapters convert their framework's usage into it (the AI SDK's `usage.inputTokens`,
 * LangChain's `usage_metadata.input_tokens`).
 */
export interface ProviderUsage {
  /**
   * Every input token the provider counted for the request, cached ones included (Anthropic's
   * `cache_read_input_tokens` and `cache_creation_input_tokens`, OpenAI's cached tokens): the
   * whole input is what is compared with ctxmem's count of what it sent.
   */
  inputTokens: number;
}

/** A count a provider reported: a finite number ≥ 0; anything else is not a count. */
function tokenCount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/**
 * The usage of a model call from the input and output counts a framework reported (each kept
 * only when it is a count); undefined when neither is. What adapters put in `CompleteResult.usage`.
 */
export function reportedUsage(
  inputTokens: unknown,
  outputTokens: unknown,
): CompleteResult['usage'] {
  const input = tokenCount(inputTokens);
  const output = tokenCount(outputTokens);
  if (input === undefined && output === undefined) return undefined;
  return {
    ...(input === undefined ? {} : { inputTokens: input }),
    ...(output === undefined ? {} : { outputTokens: output }),
  };
}

/**
 * The provider's count of a request's input as the calibration takes it: a count above 0 (a
 * provider that reports 0 input tokens did not count this request); undefined otherwise.
 */
export function providerUsage(inputTokens: unknown): ProviderUsage | undefined {
  const input = tokenCount(inputTokens);
  return input === undefined || input === 0 ? undefined : { inputTokens: input };
}

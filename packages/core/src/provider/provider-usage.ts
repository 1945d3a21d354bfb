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

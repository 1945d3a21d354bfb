import type { CompleteFn, CompleteRequest, CompleteResult } from '@ctxmem/core';
import { ContextOverflowError, detectContextOverflow, InvalidArgumentError } from '@ctxmem/core';
import { requireOptions } from '@ctxmem/core/adapter-kit';

export interface OpenAICompatibleCompleteOptions {
  /** Sent as `Authorization: Bearer <apiKey>`; never logged or put into error messages. */
  apiKey: string;
  /** The model id sent with every request, for example `gpt-4o-mini`. */
  model: string;
  /** Base URL of an OpenAI-compatible API (OpenAI, Azure-compatible proxies, vLLM, Ollama, ...). @default 'https://api.openai.com/v1' */
  baseUrl?: string;
  /** Sampling temperature; summaries should be stable. @default 0 */
  temperature?: number;
  /** The fetch implementation. @default globalThis.fetch */
  fetch?: typeof globalThis.fetch;
}

/**
 * A `CompleteFn` over `POST <baseUrl>/chat/completions`, so the CLI (and apps without an SDK) can
 * summarize with any OpenAI-compatible endpoint. No SDK dependency: one request, one answer.
 * Failures (network, non-2xx status, missing content) throw; the summarizer turns them into a
 * `SummarizerError` and its fallback takes over. A rejection of the prompt as too long throws
 * `ContextOverflowError` with the server's numbers, so the model summarizer retries it smaller.
 */
export function createOpenAICompatibleComplete(
  options: OpenAICompatibleCompleteOptions,
): CompleteFn {
  const {
    apiKey,
    model,
    baseUrl = 'https://api.openai.com/v1',
    temperature = 0,
    fetch = globalThis.fetch,
  } = requireOptions(options, 'createOpenAICompatibleComplete', {
    apiKey: { expected: 'the API key, a string', type: 'string' },
    model: { expected: 'the model id, a string', type: 'string' },
  });
  if (apiKey.trim() === '') {
    throw new InvalidArgumentError({ message: 'apiKey must not be empty', argument: 'apiKey' });
  }
  if (model.trim() === '') {
    throw new InvalidArgumentError({ message: 'model must not be empty', argument: 'model' });
  }
  let url: URL;
  try {
    url = new URL(`${baseUrl.replace(/\/+$/, '')}/chat/completions`);
  } catch (cause) {
    throw new InvalidArgumentError({
      message: `baseUrl is not a valid URL: ${baseUrl}`,
      argument: 'baseUrl',
      cause,
    });
  }
  // OpenAI's reasoning models reject `max_tokens`; many compatible servers only know it.
  const maxTokensField = url.hostname === 'api.openai.com' ? 'max_completion_tokens' : 'max_tokens';

  return async (request: CompleteRequest): Promise<CompleteResult> => {
    const body: Record<string, unknown> = {
      model,
      temperature,
      messages: [
        ...(request.system ? [{ role: 'system', content: request.system }] : []),
        { role: 'user', content: request.prompt },
      ],
    };
    if (request.maxOutputTokens !== undefined) body[maxTokensField] = request.maxOutputTokens;
    if (request.responseFormat === 'json') body.response_format = { type: 'json_object' };

    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
      body: JSON.stringify(body),
      ...(request.abortSignal ? { signal: request.abortSignal } : {}),
    });
    const text = await response.text();
    if (!response.ok) {
      const message = `${url.origin}${url.pathname} answered HTTP ${response.status}: ${errorDetail(text)}`;
      // A "too long" rejection is typed, with the server's numbers, for the summarizer to shrink
      // its prompt (OpenAI's `context_length_exceeded`, vLLM's "maximum context length").
      const overflow = detectContextOverflow({
        status: response.status,
        message,
        responseBody: text,
      });
      if (overflow) {
        throw new ContextOverflowError({
          message,
          ...(overflow.providerTokens === undefined
            ? {}
            : { providerTokens: overflow.providerTokens }),
          ...(overflow.limitTokens === undefined ? {} : { limitTokens: overflow.limitTokens }),
          ...(overflow.outputTokens === undefined ? {} : { outputTokens: overflow.outputTokens }),
        });
      }
      throw new Error(message);
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      throw new Error(
        `${url.origin}${url.pathname} answered with invalid JSON: ${errorDetail(text)}`,
      );
    }
    const choice = (
      data as { choices?: Array<{ message?: { content?: unknown }; finish_reason?: unknown }> }
    ).choices?.[0];
    const content = choice?.message?.content;
    if (typeof content !== 'string') {
      throw new Error(`${url.origin}${url.pathname} answered without choices[0].message.content`);
    }
    // Chat Completions says `content_filter`; core speaks the AI SDK's `content-filter`.
    const finishReason =
      typeof choice?.finish_reason === 'string'
        ? choice.finish_reason.replace('_', '-')
        : undefined;
    return finishReason === undefined ? { text: content } : { text: content, finishReason };
  };
}

// The API's own error message when there is one, otherwise a short head of the body.
function errorDetail(body: string): string {
  try {
    const message = (JSON.parse(body) as { error?: { message?: unknown } }).error?.message;
    if (typeof message === 'string') return message.slice(0, 300);
  } catch {
    // Not JSON: fall through to the raw head.
  }
  const head = body.replace(/\s+/g, ' ').trim().slice(0, 200);
  return head === '' ? '(empty body)' : head;
}

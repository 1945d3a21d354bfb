/**
 * Test support (not part of the package): a provider that counts tokens its own way and answers
 * as Anthropic does. It counts `factor` times what `o200k_base` counts of the prompt and tools it
 * receives, rejects a request whose count plus the requested output does not fit its window with
 * Anthropic's 400 `invalid_request_error` (`prompt is too long: N tokens > M maximum`, as an
 * `APICallError` the way `@ai-sdk/anthropic` builds one: the message, status, body and parsed
 * `data`), and reports its count as `usage.inputTokens` otherwise. Used by the middleware's tests
 * and by `pnpm bench overflow`.
 */
import { APICallError } from '@ai-sdk/provider';
import { countToolDefinitions, createTokenCounter } from '@ctxmem/core';
import { fromV3Prompt, fromV4Prompt, type V3Prompt, type V4Prompt } from './convert/index.js';

const counter = createTokenCounter();

export interface OverflowProviderOptions {
  /** The provider's tokens per `o200k_base` token. @default 1.3 */
  factor?: number;
  /** The provider's window. */
  contextWindow: number;
  /**
   * Say the counts in the rejection (Anthropic does), or reject without numbers as the OpenAI
   * Responses API does (`context_length_exceeded`, "Your input exceeds the context window").
   * @default true
   */
  numbers?: boolean;
  /** The prompt format the model receives. @default 'v4' */
  version?: 'v3' | 'v4';
}

/** Anthropic's body for a prompt that is too long (see core's detect-context-overflow tests). */
export function anthropicTooLong(providerTokens: number, limit: number): APICallError {
  const message = `prompt is too long: ${providerTokens} tokens > ${limit} maximum`;
  const data = { type: 'error', error: { type: 'invalid_request_error', message } };
  return new APICallError({
    message,
    url: 'https://api.anthropic.com/v1/messages',
    requestBodyValues: {},
    statusCode: 400,
    responseBody: JSON.stringify(data),
    data,
  });
}

/** The OpenAI Responses API's rejection, which has no numbers (anomalyco/opencode#6071). */
export function responsesTooLong(): APICallError {
  const message =
    'Your input exceeds the context window of this model. Please adjust your input and try again.';
  const data = {
    error: {
      type: 'invalid_request_error',
      code: 'context_length_exceeded',
      message,
      param: 'input',
    },
  };
  return new APICallError({
    message,
    url: 'https://api.openai.com/v1/responses',
    requestBodyValues: {},
    statusCode: 400,
    responseBody: JSON.stringify(data),
    data,
  });
}

/** The provider's count of a request and whether it fits; every request it judged is kept. */
export function createOverflowProvider({
  factor = 1.3,
  contextWindow,
  numbers = true,
  version = 'v4',
}: OverflowProviderOptions) {
  const requests: Array<{ providerTokens: number; accepted: boolean }> = [];
  return {
    requests,
    /** Counts a call as the provider would; throws its rejection when it does not fit. */
    judge({
      prompt,
      tools,
      maxOutputTokens = 0,
    }: {
      prompt: unknown;
      tools?: readonly unknown[];
      maxOutputTokens?: number;
    }): number {
      const counted =
        counter.countMessages(
          version === 'v4' ? fromV4Prompt(prompt as V4Prompt) : fromV3Prompt(prompt as V3Prompt),
        ) + (tools && tools.length > 0 ? countToolDefinitions(tools, counter) : 0);
      const providerTokens = Math.ceil(counted * factor);
      const accepted = providerTokens + maxOutputTokens <= contextWindow;
      requests.push({ providerTokens, accepted });
      if (!accepted) {
        throw numbers ? anthropicTooLong(providerTokens, contextWindow) : responsesTooLong();
      }
      return providerTokens;
    },
  };
}

/** A V3/V4 usage whose input was counted by the provider, cached tokens included in the total. */
export function usageOf(inputTokens: number, cacheRead = 0) {
  return {
    inputTokens: {
      total: inputTokens,
      noCache: inputTokens - cacheRead,
      cacheRead,
      cacheWrite: 0,
    },
    outputTokens: { total: 5, text: 5, reasoning: undefined },
  };
}

/*
 * Each provider's "too long" rejection, in the shape its SDK or framework surfaces it. The bodies
 * are the providers' own, as reported in public bug reports (cited per case); the wrappers follow
 * the SDK sources: the AI SDK's `APICallError` (`@ai-sdk/provider`, src/errors/api-call-error.ts:
 * message, statusCode, responseBody, data) and `RetryError` (`ai`, src/util/retry-error.ts:
 * errors, lastError); `@anthropic-ai/sdk`'s `APIError.makeMessage` (core/error.js: `400
 * {json of the body}` with the body in `.error`); LangChain's `ContextOverflowError`
 * (`@langchain/core/errors`: branded `langchain.error.context-overflow`, the SDK error as `cause`,
 * `lc_error_code` `CONTEXT_OVERFLOW` from `@langchain/anthropic`'s utils/errors.js).
 */
import { describe, expect, it } from 'vitest';
import { ContextOverflowError } from '../errors/index.js';
import { detectContextOverflow } from './detect-context-overflow.js';

/** An object shaped as the AI SDK's `APICallError`, with its global marker. */
function apiCallError(
  message: string,
  statusCode: number,
  body: unknown,
): Record<PropertyKey, unknown> {
  const error = Object.assign(new Error(message), {
    name: 'AI_APICallError',
    statusCode,
    responseBody: typeof body === 'string' ? body : JSON.stringify(body),
    data: typeof body === 'string' ? undefined : body,
    isRetryable: statusCode === 429 || statusCode >= 500,
  });
  Object.defineProperty(error, Symbol.for('vercel.ai.error'), { value: true });
  Object.defineProperty(error, Symbol.for('vercel.ai.error.AI_APICallError'), { value: true });
  return error as unknown as Record<PropertyKey, unknown>;
}

/** An object shaped as `@anthropic-ai/sdk`'s `BadRequestError` (and the other `APIError`s). */
function anthropicSdkError(status: number, body: unknown) {
  return Object.assign(new Error(`${status} ${JSON.stringify(body)}`), {
    name: 'Error',
    status,
    error: body,
    type: (body as { error?: { type?: string } }).error?.type ?? null,
  });
}

// anthropics/claude-code#408 and the issue's own report: Anthropic's 400 invalid_request_error.
const ANTHROPIC_TOO_LONG = {
  type: 'error',
  error: {
    type: 'invalid_request_error',
    message: 'prompt is too long: 208310 tokens > 200000 maximum',
  },
};

describe('detectContextOverflow', () => {
  it('reads Anthropic\'s "prompt is too long" through the AI SDK, with its numbers', () => {
    const error = apiCallError(ANTHROPIC_TOO_LONG.error.message, 400, ANTHROPIC_TOO_LONG);
    expect(detectContextOverflow(error)).toEqual({
      providerTokens: 208_310,
      limitTokens: 200_000,
      message: 'prompt is too long: 208310 tokens > 200000 maximum',
    });
  });

  it("reads Anthropic's rejection as @anthropic-ai/sdk's BadRequestError carries it", () => {
    const overflow = detectContextOverflow(anthropicSdkError(400, ANTHROPIC_TOO_LONG));
    expect(overflow).toMatchObject({ providerTokens: 208_310, limitTokens: 200_000 });
  });

  it('reads Anthropic\'s "input length and max_tokens exceed context limit" with the output', () => {
    // anthropics/claude-code#408
    const body = {
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message:
          'input length and `max_tokens` exceed context limit: 189136 + 20000 > 204648, decrease input length or `max_tokens` and try again',
      },
    };
    expect(detectContextOverflow(apiCallError(body.error.message, 400, body))).toMatchObject({
      providerTokens: 189_136,
      outputTokens: 20_000,
      limitTokens: 204_648,
    });
  });

  it("reads OpenAI's context_length_exceeded with its numbers", () => {
    // crewAIInc/crewAI-examples#121
    const body = {
      error: {
        message:
          "This model's maximum context length is 8192 tokens. However, your messages resulted in 8227 tokens. Please reduce the length of the messages.",
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      },
    };
    expect(detectContextOverflow(apiCallError(body.error.message, 400, body))).toMatchObject({
      providerTokens: 8_227,
      limitTokens: 8_192,
    });
    // mckaywrigley/chatbot-ui#102: the older form splits messages and completion.
    const split = {
      error: {
        message:
          "This model's maximum context length is 4097 tokens. However, you requested 4120 tokens (3120 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      },
    };
    expect(detectContextOverflow(apiCallError(split.error.message, 400, split))).toMatchObject({
      providerTokens: 3_120,
      outputTokens: 1_000,
      limitTokens: 4_097,
    });
  });

  it("recognizes the OpenAI Responses API's rejection, which has no numbers", () => {
    // anomalyco/opencode#6071 (a stream's error event carries the same object)
    const body = {
      type: 'error',
      error: {
        type: 'invalid_request_error',
        code: 'context_length_exceeded',
        message:
          'Your input exceeds the context window of this model. Please adjust your input and try again.',
        param: 'input',
      },
    };
    expect(detectContextOverflow(apiCallError(body.error.message, 400, body))).toEqual({
      message:
        'Your input exceeds the context window of this model. Please adjust your input and try again.',
    });
  });

  it("recognizes Groq's rejection by its code alone", () => {
    // thepersonalaicompany/amurex-backend#51
    const body = {
      error: {
        message: 'Please reduce the length of the messages or completion.',
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      },
    };
    const error = apiCallError('Bad Request', 400, body);
    expect(detectContextOverflow(error)).toEqual({
      message: 'Please reduce the length of the messages or completion.',
    });
  });

  it("reads OpenRouter's and vLLM's wording", () => {
    // refly-ai/refly#1177
    const openRouter = new Error(
      '400 This endpoint\'s maximum context length is 32768 tokens. However, you requested about 42832 tokens (42832 of text input). Please reduce the length of either one, or use the "middle-out" transform to compress your prompt automatically.',
    );
    expect(detectContextOverflow(openRouter)).toMatchObject({
      providerTokens: 42_832,
      limitTokens: 32_768,
    });
    // vllm-project/vllm, the OpenAI server's input check (VLLMValidationError).
    const vllm = {
      object: 'error',
      message:
        "This model's maximum context length is 32768 tokens. However, your request has 40000 input tokens. Please reduce the length of the input messages.",
      type: 'BadRequestError',
      param: 'input_tokens',
      code: 400,
    };
    expect(detectContextOverflow(apiCallError(vllm.message, 400, vllm))).toMatchObject({
      providerTokens: 40_000,
      limitTokens: 32_768,
    });
    // vLLM when the output asked for does not fit beside the input (andrewcho-dev/opsconductor-ng).
    const output = {
      error: {
        message:
          "'max_tokens' or 'max_completion_tokens' is too large: 8000. This model's maximum context length is 4096 tokens and your request has 2778 input tokens (8000 > 4096 - 2778). None",
        type: 'BadRequestError',
        param: null,
        code: 400,
      },
    };
    expect(detectContextOverflow(apiCallError(output.error.message, 400, output))).toMatchObject({
      providerTokens: 2_778,
      outputTokens: 8_000,
      limitTokens: 4_096,
    });
  });

  it("reads Gemini's INVALID_ARGUMENT through the AI SDK and @google/generative-ai", () => {
    // google-gemini/gemini-cli#6678
    const body = {
      error: {
        code: 400,
        message:
          'The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).',
        status: 'INVALID_ARGUMENT',
      },
    };
    expect(detectContextOverflow(apiCallError(body.error.message, 400, body))).toMatchObject({
      providerTokens: 1_200_293,
      limitTokens: 1_048_576,
    });
    // @google/generative-ai's GoogleGenerativeAIFetchError (what @langchain/google-genai throws).
    const fetchError = Object.assign(
      new Error(
        '[GoogleGenerativeAI Error]: Error fetching from https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:generateContent: [400 Bad Request] The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).',
      ),
      { status: 400, statusText: 'Bad Request' },
    );
    expect(detectContextOverflow(fetchError)).toMatchObject({ providerTokens: 1_200_293 });
  });

  it("recognizes Bedrock's ValidationException, which has no numbers", () => {
    // aws-samples/assessment-generator#2
    const error = Object.assign(new Error('Input is too long for requested model.'), {
      name: 'ValidationException',
      $fault: 'client',
      $metadata: { httpStatusCode: 400 },
    });
    expect(detectContextOverflow(error)).toEqual({
      message: 'Input is too long for requested model.',
    });
  });

  it("finds the overflow inside the AI SDK's RetryError and LangChain's ContextOverflowError", () => {
    const overflow = apiCallError(ANTHROPIC_TOO_LONG.error.message, 400, ANTHROPIC_TOO_LONG);
    const retry = Object.assign(new Error('Failed after 1 attempts.'), {
      name: 'AI_RetryError',
      reason: 'errorNotRetryable',
      errors: [overflow],
      lastError: overflow,
    });
    expect(detectContextOverflow(retry)).toMatchObject({ providerTokens: 208_310 });

    // As @langchain/anthropic wraps the SDK's error: message copied, the SDK error as the cause.
    const sdk = anthropicSdkError(400, ANTHROPIC_TOO_LONG);
    const langchain = Object.assign(new Error(sdk.message), {
      name: 'ContextOverflowError',
      lc_error_code: 'CONTEXT_OVERFLOW',
      cause: sdk,
    });
    Object.defineProperty(langchain, Symbol.for('langchain.error.context-overflow'), {
      value: true,
    });
    expect(detectContextOverflow(langchain)).toMatchObject({
      providerTokens: 208_310,
      limitTokens: 200_000,
    });
    // Branded alone (another integration's words), it is still an overflow.
    const branded = new Error('Input exceeded the model context.');
    Object.defineProperty(branded, Symbol.for('langchain.error.context-overflow'), {
      value: true,
    });
    expect(detectContextOverflow(branded)).toEqual({
      message: 'Input exceeded the model context.',
    });
  });

  it("passes ctxmem's own ContextOverflowError through with its numbers", () => {
    const error = new ContextOverflowError({
      message: 'too long',
      providerTokens: 40_000,
      limitTokens: 32_768,
    });
    expect(detectContextOverflow(error)).toEqual({
      message: 'too long',
      providerTokens: 40_000,
      limitTokens: 32_768,
    });
  });

  it('leaves rate limits, server errors and other failures alone', () => {
    // TheR1D/shell_gpt#653: a per-minute token limit is a 429, not a window overflow.
    const tokensPerMinute = {
      error: {
        message:
          'Request too large for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Requested 31538. The input or output tokens must be reduced in order to run successfully.',
        type: 'tokens',
        param: null,
        code: 'rate_limit_exceeded',
      },
    };
    expect(
      detectContextOverflow(apiCallError(tokensPerMinute.error.message, 429, tokensPerMinute)),
    ).toBeUndefined();
    // Even a 5xx whose body quotes an overflow is the server's failure, not the request's size.
    expect(
      detectContextOverflow(
        apiCallError('upstream failed: prompt is too long', 502, 'Bad Gateway'),
      ),
    ).toBeUndefined();
    const overloaded = {
      type: 'error',
      error: { type: 'overloaded_error', message: 'Overloaded' },
    };
    expect(detectContextOverflow(anthropicSdkError(529, overloaded))).toBeUndefined();
    const toolResult = {
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message:
          'messages.2: `tool_use` ids were found without `tool_result` blocks immediately after',
      },
    };
    expect(detectContextOverflow(apiCallError(toolResult.error.message, 400, toolResult))).toBe(
      undefined,
    );
    expect(detectContextOverflow(new Error('fetch failed'))).toBeUndefined();
    expect(detectContextOverflow(new DOMException('aborted', 'AbortError'))).toBeUndefined();
    expect(detectContextOverflow(undefined)).toBeUndefined();
    expect(detectContextOverflow('prompt is too long')).toMatchObject({
      message: 'prompt is too long',
    });
  });

  it('survives a cyclic cause chain and keeps the message short', () => {
    const first = new Error(
      `prompt is too long: 300000 tokens > 200000 maximum ${'x'.repeat(5_000)}`,
    );
    const second = new Error('wrapper', { cause: first });
    (first as { cause?: unknown }).cause = second;
    const overflow = detectContextOverflow(second);
    expect(overflow?.providerTokens).toBe(300_000);
    expect(overflow?.message.length).toBeLessThanOrEqual(300);
  });
});

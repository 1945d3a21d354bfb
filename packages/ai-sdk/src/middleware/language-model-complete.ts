import { type CompleteFn, type CompleteRequest, InvalidArgumentError } from '@ctxmem/core';
import { CTXMEM_PROVIDER_OPTIONS_KEY } from './call-scope.js';
import { languageModelUsage } from './provider-response.js';

/** A text-only prompt: the same JSON in the V3 and V4 prompt formats. */
type TextPrompt = Array<
  | { role: 'system'; content: string }
  | { role: 'user'; content: Array<{ type: 'text'; text: string }> }
>;

/** The call options ctxmem sends: valid `LanguageModelV4CallOptions` and `LanguageModelV3CallOptions`. */
export interface TextCallOptions {
  prompt: TextPrompt;
  maxOutputTokens?: number;
  responseFormat?: { type: 'text' } | { type: 'json' };
  abortSignal?: AbortSignal;
  providerOptions?: Record<string, Record<string, boolean>>;
}

/**
 * The part of an AI SDK language model (V3 or V4, from `ai` 6 or 7) that ctxmem calls. Any
 * `LanguageModelV4` or `LanguageModelV3` object is one.
 */
export interface LanguageModelLike {
  readonly specificationVersion: string;
  readonly provider: string;
  readonly modelId: string;
  doGenerate(options: TextCallOptions): PromiseLike<{
    content: ReadonlyArray<{ type: string }>;
    finishReason?: unknown;
    usage?: unknown;
  }>;
}

export interface LanguageModelCompleteOptions {
  /**
   * Mark the calls with `providerOptions.ctxmem.bypass`, so that a model wrapped with the context
   * memory middleware sends the summarizer's prompt untouched.
   * @default true
   */
  bypass?: boolean;
}

/** True for an object that can be called like an AI SDK language model. */
export function isLanguageModel(value: unknown): value is LanguageModelLike {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { doGenerate?: unknown }).doGenerate === 'function' &&
    typeof (value as { modelId?: unknown }).modelId === 'string'
  );
}

/**
 * A `CompleteFn` (what ctxmem's model summarizer and memory flush call) over an AI SDK language
 * model. It calls `doGenerate` directly, so no retries, telemetry or middleware of `generateText`
 * run, and returns the text parts of the answer joined together, with the model id and the token
 * usage for ctxmem's own telemetry.
 */
export function languageModelComplete(
  model: LanguageModelLike,
  { bypass = true }: LanguageModelCompleteOptions = {},
): CompleteFn {
  if (!isLanguageModel(model)) {
    throw new InvalidArgumentError({
      message: 'languageModelComplete needs an AI SDK language model (an object with doGenerate)',
      argument: 'model',
    });
  }
  return async ({
    system,
    prompt,
    maxOutputTokens,
    responseFormat,
    abortSignal,
  }: CompleteRequest) => {
    const result = await model.doGenerate({
      prompt: [
        ...(system ? [{ role: 'system' as const, content: system }] : []),
        { role: 'user', content: [{ type: 'text', text: prompt }] },
      ],
      ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
      ...(responseFormat === undefined ? {} : { responseFormat: { type: responseFormat } }),
      ...(abortSignal === undefined ? {} : { abortSignal }),
      ...(bypass ? { providerOptions: { [CTXMEM_PROVIDER_OPTIONS_KEY]: { bypass: true } } } : {}),
    });
    const text = result.content
      .filter((part): part is { type: 'text'; text: string } => part.type === 'text')
      .map((part) => part.text)
      .join('');
    const finishReason = unifiedFinishReason(result.finishReason);
    const usage = languageModelUsage(result.usage);
    return {
      text,
      ...(finishReason === undefined ? {} : { finishReason }),
      model: model.modelId,
      ...(usage ? { usage } : {}),
    };
  };
}

/** The finish reason of a V2 (a string) or V3/V4 (`{ unified, raw }`) model result. */
function unifiedFinishReason(reason: unknown): string | undefined {
  if (typeof reason === 'string') return reason;
  if (typeof reason === 'object' && reason !== null) {
    const unified = (reason as { unified?: unknown }).unified;
    if (typeof unified === 'string') return unified;
  }
  return undefined;
}

/**
 * The summarizer `compact` uses: the offline extractive one, or with `--model` a model endpoint
 * behind a circuit breaker that falls back to it, shown on the status line as it works.
 */
import type { Summarizer, TokenCounter } from '@ctxmem/core';
import type { CliDependencies } from '../dependencies.js';
import { createOpenAICompatibleComplete } from '../openai-complete.js';
import type { Activity } from '../progress.js';
import type { CliContext } from '../run-cli.js';
import type { CompactCommandOptions } from './compact-arguments.js';

/** Context window assumed for a summarizer model that the registry does not know. */
const UNKNOWN_MODEL_CONTEXT_WINDOW = 32_000;

/** The summarizer, showing each call on the status line (the slow part of a compaction). */
export function withActivity(summarizer: Summarizer, activity: Activity): Summarizer {
  let calls = 0;
  return {
    name: summarizer.name,
    ...(summarizer.maxSummaryTokens === undefined
      ? {}
      : { maxSummaryTokens: summarizer.maxSummaryTokens }),
    summarize(request) {
      calls++;
      activity.show(`summarizing with ${summarizer.name}, call ${calls}`);
      return summarizer.summarize(request);
    },
  };
}

export function createSummarizer(
  options: CompactCommandOptions,
  counter: TokenCounter,
  dependencies: CliDependencies,
  context: CliContext,
): { summarizer: Summarizer; firstFailure: () => string | undefined } {
  const extractive = dependencies.createExtractiveSummarizer({ counter });
  if (!options.model || !options.apiKey) {
    return { summarizer: extractive, firstFailure: () => undefined };
  }
  const complete = createOpenAICompatibleComplete({
    apiKey: options.apiKey,
    model: options.model,
    baseUrl: options.baseUrl,
    ...(context.fetch ? { fetch: context.fetch } : {}),
  });
  const model = dependencies.createModelSummarizer({
    complete,
    counter,
    contextWindow: dependencies.resolveContextWindow(options.model) ?? UNKNOWN_MODEL_CONTEXT_WINDOW,
    timeoutMs: options.timeoutMs,
    name: `model:${options.model}`,
  });
  // Kept for the report: later calls only say that the circuit is open.
  let failure: string | undefined;
  const recorded: Summarizer = {
    name: model.name,
    // Compaction plans its cut with the summary the model is asked to write.
    ...(model.maxSummaryTokens === undefined ? {} : { maxSummaryTokens: model.maxSummaryTokens }),
    async summarize(request) {
      try {
        return await model.summarize(request);
      } catch (error) {
        failure ??= error instanceof Error ? error.message : String(error);
        throw error;
      }
    },
  };
  // One failure (a timeout, an outage) opens the circuit: the rest of this run summarizes offline
  // at once instead of waiting for the endpoint again on every call.
  const breaker = dependencies.withCircuitBreaker(recorded, { failures: 1 });
  return {
    summarizer: dependencies.withFallback(breaker, extractive),
    firstFailure: () => failure,
  };
}

import type {
  CompleteFn,
  CompleteRequest,
  MemoryCardDraft,
  Message,
  StructuredSummary,
  SummarizeRequest,
  SummarizeResult,
  Summarizer,
  SummarizerFailureKind,
  TokenCounter,
} from '../contracts/index.js';
import { BudgetExceededError, InvalidArgumentError, SummarizerError } from '../errors/index.js';
import {
  type ContextOverflow,
  detectContextOverflow,
  OVERFLOW_RETRY_MARGIN,
  OVERFLOW_RETRY_SHARE,
} from '../provider/index.js';
import { requireOptions } from '../validation/index.js';
import {
  computeChunkRatio,
  isOversized,
  SAFETY_MARGIN,
  splitByTokens,
} from './adaptive-chunking.js';
import { fitSummary } from './fit-summary.js';
import { answerOf, isRefusal, unusableAnswerReason } from './model-answer.js';
import { parseModelResponse } from './parse-model-response.js';
import { emptySections, renderSummary } from './render-summary.js';
import { prepareSummaryInput } from './summary-input.js';
import {
  buildSummaryPrompt,
  renderMessageForPrompt,
  renderOversizedForPrompt,
  SUMMARY_SYSTEM_PROMPT,
} from './summary-prompt.js';
import { comparisonKey } from './summary-text.js';
import { requireCounter, requirePositiveInteger } from './validate-options.js';

export interface ModelSummarizerOptions {
  /** The model call (supplied by an adapter). It should honour `abortSignal`; a call that does not is abandoned on timeout anyway. */
  complete: CompleteFn;
  /** Counts prompt and summary tokens. */
  counter: TokenCounter;
  /** Context window of the summarizing model in tokens: every prompt plus `maxOutputTokens` fits in it. @default 32000 */
  contextWindow?: number;
  /**
   * The longest summary the model is asked to write, in tokens, however much room a compaction
   * gives it (`maxTokens`): output costs time and money, and a model writes about 50 tokens a
   * second. Behind `withFallback`, the fallback is asked for no more (compaction planned with it);
   * the extractive summarizer used alone fills the whole room.
   * @default MODEL_SUMMARY_MAX_TOKENS (1,500)
   */
  maxSummaryTokens?: number;
  /**
   * Output tokens requested per call (and reserved in the window).
   * @default one and a half times the summary asked for (`maxTokens`, at most `maxSummaryTokens`) plus 512 for the memories, between 1,024 and a quarter of the window
   */
  maxOutputTokens?: number;
  /**
   * A whole summary (every chunk's model call) is given up after this many milliseconds, and the
   * fallback takes over: a compaction never waits longer for the model.
   * @default 30000
   */
  timeoutMs?: number;
  /** Name in reports and errors. @default 'model' */
  name?: string;
  /** Extra instructions appended to the system prompt (for example the language to write in). @default none */
  instructions?: string;
  /** Characters of each tool result shown to the model. @default 1000 */
  toolResultChars?: number;
  /** Characters of each tool call's arguments shown to the model. @default 1000 */
  toolArgumentsChars?: number;
  /** Characters of head and tail excerpt sent for a message too large to send whole. @default 2000 */
  oversizedExcerptChars?: number;
}

/**
 * The longest summary a model is asked to write by default: about 1,100 words. Written with its
 * JSON and a few memories that is some 2,000 output tokens, about 25 seconds at 80 tokens a
 * second, within the default 30-second timeout. The output allowance (1.5 × the summary + 512, so
 * 2,762 tokens) leaves room for a model's overshoot, since an answer cut off at the limit is
 * rejected. Sized by the room alone, a compaction on a large window asked for up to 16,512 output
 * tokens: minutes and real money per compaction.
 */
export const MODEL_SUMMARY_MAX_TOKENS = 1_500;
/** Output allowed per token of summary asked for: JSON quoting, and a model's overshoot. */
const OUTPUT_PER_SUMMARY_TOKEN = 1.5;
/** Output allowed for the memories besides the summary. */
const MEMORY_OUTPUT_TOKENS = 512;

/** Share of the window the previous summary may take in a prompt. */
const PREVIOUS_SUMMARY_SHARE = 0.25;
/** A window that leaves less than this for messages is a configuration mistake. */
const MIN_MESSAGE_TOKENS = 64;

interface PromptItem {
  number: number;
  message: Message;
  text: string;
  tokens: number;
}

/**
 * A summarizer over a model call. Each call sends the previous summary and the new messages with a
 * short few-shot prompt and asks for one JSON object with the summary sections and memory cards;
 * the answer is parsed tolerantly (a fenced block, trailing commas, aliases of the section names,
 * or the summary's own Markdown shape). Anything else throws `SummarizerError`, so that the
 * fallback summarizer takes over and nothing of the bad answer is stored: an empty answer or
 * summary, a refusal or other prose, an answer cut off at the output limit (`finishReason`
 * `'length'`) or stopped by a content filter, and a call that throws, times out or is aborted.
 *
 * When the messages do not fit the model's window they are summarized in chunks (adaptive chunking):
 * chunks take 40% of the window, less as messages grow (down to 15%), with a 1.2 safety margin;
 * each chunk's summary is the previous summary of the next. A message larger than half the window
 * is sent as a head-and-tail excerpt with a note, never whole.
 *
 * When the model rejects a prompt as too long (`detectContextOverflow`: its provider counts more
 * than ctxmem, or its window is smaller than `contextWindow`), the summary is planned again in a
 * smaller window, once: the provider's limit over the ratio its count shows, plus 5 %, or
 * `OVERFLOW_RETRY_SHARE` of the window without numbers. Later summaries start from that window. A
 * second rejection throws `SummarizerError` of kind `context-overflow`, and the fallback (the
 * extractive summarizer, in a context manager) writes the summary.
 */
export function createModelSummarizer(options: ModelSummarizerOptions): Summarizer {
  const {
    complete,
    counter,
    contextWindow = 32_000,
    maxSummaryTokens = MODEL_SUMMARY_MAX_TOKENS,
    maxOutputTokens,
    timeoutMs = 30_000,
    name = 'model',
    instructions,
    toolResultChars = 1000,
    toolArgumentsChars = 1000,
    oversizedExcerptChars = 2000,
  } = requireOptions(options, 'createModelSummarizer');
  if (typeof complete !== 'function') {
    throw new InvalidArgumentError({
      message: 'complete is required (a CompleteFn)',
      argument: 'complete',
    });
  }
  requireCounter(counter, 'createModelSummarizer');
  requirePositiveInteger('contextWindow', contextWindow);
  requirePositiveInteger('timeoutMs', timeoutMs);
  requirePositiveInteger('toolResultChars', toolResultChars);
  requirePositiveInteger('toolArgumentsChars', toolArgumentsChars);
  requirePositiveInteger('oversizedExcerptChars', oversizedExcerptChars);
  requirePositiveInteger('maxSummaryTokens', maxSummaryTokens);
  if (maxOutputTokens !== undefined) {
    requirePositiveInteger('maxOutputTokens', maxOutputTokens);
    if (maxOutputTokens >= contextWindow) {
      throw new InvalidArgumentError({
        message: `maxOutputTokens (${maxOutputTokens}) must be smaller than contextWindow (${contextWindow})`,
        argument: 'maxOutputTokens',
      });
    }
  }

  const system = instructions?.trim()
    ? `${SUMMARY_SYSTEM_PROMPT}\n\nAdditional instructions:\n${instructions.trim()}`
    : SUMMARY_SYSTEM_PROMPT;
  const systemTokens = counter.countText(system);
  const renderOptions = { toolResultChars, toolArgumentsChars };

  const fail = (kind: SummarizerFailureKind, message: string, cause?: unknown): SummarizerError =>
    new SummarizerError({
      message: `Summarizer ${name}: ${message}`,
      summarizer: name,
      kind,
      cause,
    });

  const fitToBudget = (summary: StructuredSummary, maxTokens: number): StructuredSummary => {
    try {
      return fitSummary(summary, maxTokens, counter);
    } catch (error) {
      if (BudgetExceededError.isInstance(error)) {
        throw fail('too-small', `the summary cannot fit in ${maxTokens} tokens`, error);
      }
      throw error;
    }
  };

  /**
   * The share of `contextWindow` the prompts are planned in: 1 until the model rejects a prompt
   * as too long, then what the rejection showed (see `shareAfterOverflow`), kept for later calls.
   */
  let windowShare = 1;
  /** ctxmem's count of the last prompt sent (system and prompt), for a rejection's ratio. */
  let lastPromptTokens = 0;

  return {
    name,
    maxSummaryTokens,
    async summarize(request: SummarizeRequest): Promise<SummarizeResult> {
      const input = prepareSummaryInput(request, name);
      const { maxTokens: room } = request;
      if (input.messages.length === 0) {
        // Nothing new: the previous summary stands (trimmed to the budget), no call needed.
        const summary = input.previousSummary
          ? fitToBudget(input.previousSummary, room)
          : { sections: emptySections() };
        return { summary, cards: [], calls: 0 };
      }
      const deadline = Date.now() + timeoutMs;
      try {
        return await summarizeWithin(request, input, deadline);
      } catch (error) {
        const overflow = overflowOf(error);
        if (!overflow || request.abortSignal?.aborted) throw error;
        // The model's provider counts more than ctxmem, or its window is smaller than
        // configured: plan again in a smaller window, once; later calls keep it.
        windowShare = shareAfterOverflow(windowShare, overflow, lastPromptTokens, contextWindow);
        try {
          return await summarizeWithin(request, input, deadline);
        } catch (again) {
          if (!overflowOf(again)) throw again;
          throw fail(
            'context-overflow',
            'the model rejected the summary prompt as too long, and again at a smaller size',
            (again as SummarizerError).cause,
          );
        }
      }
    },
  };

  async function summarizeWithin(
    request: SummarizeRequest,
    input: ReturnType<typeof prepareSummaryInput>,
    deadline: number,
  ): Promise<SummarizeResult> {
    const { maxTokens: room, abortSignal } = request;
    // What the model is asked to write; the room it may not fill stays the compaction's.
    const maxTokens = Math.min(room, maxSummaryTokens);
    const window = Math.max(1, Math.floor(contextWindow * windowShare));

    const outputTokens =
      maxOutputTokens ??
      Math.min(
        Math.floor(window / 4),
        Math.max(1024, Math.ceil(OUTPUT_PER_SUMMARY_TOKEN * maxTokens) + MEMORY_OUTPUT_TOKENS),
      );
    const previousReserve = Math.floor(window * PREVIOUS_SUMMARY_SHARE);
    let previous = input.previousSummary;
    if (previous && counter.countText(renderSummary(previous)) > previousReserve) {
      previous = fitToBudget(previous, previousReserve);
    }
    const previousTokens = Math.max(
      previous ? counter.countText(renderSummary(previous)) : 0,
      Math.min(maxTokens, previousReserve),
    );
    // The frame of the prompt without previous summary or messages; the placeholders are
    // counted separately so that the reserve for them is explicit.
    const frameTokens = counter.countText(
      buildSummaryPrompt({
        previousSummary: undefined,
        renderedMessages: [],
        maxTokens,
        part: { index: 999, count: 999 },
      }),
    );
    const messageBudget = window - outputTokens - systemTokens - frameTokens - previousTokens;
    if (messageBudget < MIN_MESSAGE_TOKENS) {
      throw fail(
        'too-small',
        `contextWindow ${window} leaves only ${messageBudget} tokens for messages ` +
          `(output ${outputTokens}, system ${systemTokens}, previous summary ${previousTokens})`,
      );
    }

    const items = promptItems(input.messages, messageBudget, window);
    const chunks = planChunks(items, messageBudget, window);

    const cards: MemoryCardDraft[] = [];
    const cardKeys = new Set<string>();
    let calls = 0;
    for (const [chunkIndex, chunk] of chunks.entries()) {
      const prompt = buildSummaryPrompt({
        previousSummary: previous,
        renderedMessages: chunk.map((item) => item.text),
        maxTokens,
        ...(chunks.length > 1 ? { part: { index: chunkIndex + 1, count: chunks.length } } : {}),
      });
      const promptTokens = systemTokens + counter.countText(prompt) + outputTokens;
      if (promptTokens > window) {
        // Unreachable with an additive counter (the chunks are packed with a margin), kept so
        // that a prompt never exceeds the window silently.
        throw fail(
          'too-small',
          `a prompt of ${promptTokens} tokens does not fit the window ${window}`,
        );
      }
      lastPromptTokens = promptTokens - outputTokens;
      const answer = await callModel({
        request: {
          system,
          prompt,
          maxOutputTokens: outputTokens,
          responseFormat: 'json',
        },
        abortSignal,
        deadline,
      });
      calls++;
      const sourceIds = new Map<number, string>();
      for (const item of chunk) {
        if (item.message.id !== undefined) sourceIds.set(item.number, item.message.id);
      }
      const parsed = parseModelResponse(answer, sourceIds);
      if (isEmptySummary(parsed.summary)) {
        throw fail('empty', 'the model returned an empty summary');
      }
      // Only a summary is accepted: JSON with summary sections, or text in the summary's own
      // Markdown shape. Prose (a refusal, an explanation, a cut-off fragment) is not stored.
      if (!parsed.structured && !hasSections(parsed.summary)) {
        throw isRefusal(answer)
          ? fail('refusal', 'the model refused instead of summarizing')
          : fail(
              'unparseable',
              'the answer is not a summary (no JSON object and no summary sections)',
            );
      }
      const isLast = chunkIndex === chunks.length - 1;
      previous = fitToBudget(
        parsed.summary,
        // Trimmed to what was asked even when the room is larger: compaction planned with it.
        isLast ? maxTokens : Math.min(maxTokens, previousReserve),
      );
      for (const card of parsed.cards) {
        const key = comparisonKey(card.content);
        if (cardKeys.has(key)) continue;
        cardKeys.add(key);
        cards.push(card);
      }
    }
    return { summary: previous!, cards, calls };
  }

  function promptItems(
    messages: readonly Message[],
    messageBudget: number,
    window: number,
  ): PromptItem[] {
    // A message above half the window, or too large to fit a prompt on its own, is excerpted.
    const limit = Math.min(window * 0.5, messageBudget / SAFETY_MARGIN);
    return messages.map((message, index) => {
      const number = index + 1;
      const text = renderMessageForPrompt(message, number, renderOptions);
      const tokens = counter.countText(text);
      if (!isOversized(tokens, window) && tokens <= limit) {
        return { number, message, text, tokens };
      }
      let excerptChars = oversizedExcerptChars;
      let excerpt = '';
      let excerptTokens = Number.POSITIVE_INFINITY;
      // Shrink the excerpt until it leaves room for other messages in the same chunk.
      while (excerptChars >= 16) {
        excerpt = renderOversizedForPrompt(message, number, {
          ...renderOptions,
          tokens,
          excerptChars,
        });
        excerptTokens = counter.countText(excerpt);
        if (excerptTokens * SAFETY_MARGIN <= messageBudget / 4) break;
        excerptChars = Math.floor(excerptChars / 2);
      }
      return { number, message, text: excerpt, tokens: excerptTokens };
    });
  }

  function planChunks(items: PromptItem[], messageBudget: number, window: number): PromptItem[][] {
    // One newline per message joins them in the prompt.
    const margined = (item: PromptItem) => (item.tokens + 1) * SAFETY_MARGIN;
    if (items.reduce((sum, item) => sum + margined(item), 0) <= messageBudget) return [items];
    const ratio = computeChunkRatio(
      items.map((item) => item.tokens),
      window,
    );
    const chunkTokens = Math.min(Math.floor(window * ratio), messageBudget);
    return splitByTokens(items, margined, chunkTokens);
  }

  async function callModel({
    request,
    abortSignal,
    deadline,
  }: {
    request: CompleteRequest;
    abortSignal: AbortSignal | undefined;
    deadline: number;
  }): Promise<string> {
    if (abortSignal?.aborted) throw fail('aborted', 'aborted', abortSignal.reason);
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw fail('timeout', `timed out after ${timeoutMs} ms`);
    const timeout = new AbortController();
    const timer = setTimeout(
      () => timeout.abort(new DOMException(`Timed out after ${timeoutMs} ms`, 'TimeoutError')),
      remaining,
    );
    const signal = abortSignal ? AbortSignal.any([abortSignal, timeout.signal]) : timeout.signal;
    let stopWaiting: (() => void) | undefined;
    // Do not depend on `complete` honouring the signal: stop waiting as soon as it fires.
    const aborted = new Promise<never>((_, reject) => {
      stopWaiting = () => reject(signal.reason);
      signal.addEventListener('abort', stopWaiting, { once: true });
    });
    let answer: unknown;
    try {
      answer = await Promise.race([
        Promise.resolve().then(() => complete({ ...request, abortSignal: signal })),
        aborted,
      ]);
    } catch (error) {
      if (abortSignal?.aborted) throw fail('aborted', 'aborted', abortSignal.reason);
      if (timeout.signal.aborted) throw fail('timeout', `timed out after ${timeoutMs} ms`);
      if (detectContextOverflow(error)) {
        throw fail('context-overflow', 'the model rejected the prompt as too long', error);
      }
      const failure = describeFailure(error);
      throw fail(failure.kind, failure.reason, error);
    } finally {
      clearTimeout(timer);
      if (stopWaiting) signal.removeEventListener('abort', stopWaiting);
    }
    const normalized = answerOf(answer);
    if (!normalized) throw fail('unparseable', 'the model answer is not a string');
    const unusable = unusableAnswerReason(normalized);
    if (unusable) throw fail(unusable.kind, unusable.reason);
    return normalized.text;
  }
}

/** The provider's rejection behind a summarizer's `context-overflow` failure. */
function overflowOf(error: unknown): ContextOverflow | undefined {
  if (!SummarizerError.isInstance(error) || error.kind !== 'context-overflow') return undefined;
  return detectContextOverflow(error.cause) ?? { message: error.message };
}

/**
 * The window share after a rejection: the provider's limit when smaller than the window, divided
 * by the ratio its count shows (its count of the prompt over ctxmem's) plus a margin; without
 * numbers that explain it, `OVERFLOW_RETRY_SHARE` of the share before.
 */
function shareAfterOverflow(
  share: number,
  overflow: ContextOverflow,
  promptTokens: number,
  contextWindow: number,
): number {
  const window = contextWindow * share;
  const { providerTokens, limitTokens } = overflow;
  let next = limitTokens !== undefined && limitTokens < window ? limitTokens : window;
  if (providerTokens !== undefined && promptTokens > 0 && providerTokens > promptTokens) {
    next = (next * promptTokens) / providerTokens / (1 + OVERFLOW_RETRY_MARGIN);
  }
  const factor = next / window;
  return share * (factor < 1 ? factor : OVERFLOW_RETRY_SHARE);
}

function hasSections(summary: StructuredSummary): boolean {
  return Object.values(summary.sections).some((items: string[]) => items.length > 0);
}

function isEmptySummary(summary: StructuredSummary): boolean {
  return (
    !summary.freeText?.trim() &&
    Object.values(summary.sections).every((items: string[]) => items.length === 0)
  );
}

/** A short reason for reports; rate limits are named as such so that callers can see them. */
function describeFailure(error: unknown): { kind: 'rate-limited' | 'error'; reason: string } {
  const record = (typeof error === 'object' && error !== null ? error : {}) as Record<
    string,
    unknown
  >;
  const message = error instanceof Error ? error.message : String(error);
  const status = record.status ?? record.statusCode;
  if (status === 429 || /rate.?limit|too many requests/i.test(message)) {
    return { kind: 'rate-limited', reason: `the model call was rate limited: ${message}` };
  }
  return { kind: 'error', reason: `the model call failed: ${message}` };
}

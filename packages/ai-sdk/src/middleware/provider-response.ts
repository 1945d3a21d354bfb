import { type CompleteResult, detectContextOverflow, type ProviderUsage } from '@ctxmem/core';
import { providerUsage, reportedUsage } from '@ctxmem/core/adapter-kit';

/** A stream part of a language model, as far as ctxmem reads it (V3 and V4 alike). */
export interface StreamPartLike {
  type: string;
  usage?: unknown;
  error?: unknown;
}

/** Parts a provider sends before any output: a rejection may still follow them. */
const PREAMBLE_PARTS: ReadonlySet<string> = new Set(['stream-start', 'response-metadata', 'raw']);

/** The parts a V3/V4 count may be split into, when it has no `total`. */
const INPUT_PARTS = ['noCache', 'cacheRead', 'cacheWrite'] as const;
const OUTPUT_PARTS = ['text', 'reasoning'] as const;

/** A V3/V4 token count (`{ total, …parts }`): its total, else the sum of its parts; a V2 number as is. */
function tokenTotal(count: unknown, parts: readonly string[]): unknown {
  if (typeof count !== 'object' || count === null) return count;
  const record = count as Record<string, unknown>;
  if (typeof record.total === 'number') return record.total;
  const numbers = parts
    .map((part) => record[part])
    .filter((part): part is number => typeof part === 'number');
  return numbers.length === 0 ? undefined : numbers.reduce((sum, part) => sum + part, 0);
}

function usageCounts(usage: unknown): { inputTokens?: unknown; outputTokens?: unknown } {
  return typeof usage === 'object' && usage !== null ? usage : {};
}

/**
 * The input and output tokens of a language model's usage (AI SDK 6 and 7, V3 and V4: cached
 * reads and writes included in the input, as `@ai-sdk/anthropic` and `@ai-sdk/openai` fill it;
 * the V2 numbers too), for `CompleteResult.usage`. Undefined when the provider reported none.
 */
export function languageModelUsage(usage: unknown): CompleteResult['usage'] {
  const { inputTokens, outputTokens } = usageCounts(usage);
  return reportedUsage(
    tokenTotal(inputTokens, INPUT_PARTS),
    tokenTotal(outputTokens, OUTPUT_PARTS),
  );
}

/** The provider's count of the input of a language model's usage, for the calibration. */
export function providerUsageOf(usage: unknown): ProviderUsage | undefined {
  return providerUsage(tokenTotal(usageCounts(usage).inputTokens, INPUT_PARTS));
}

/**
 * A stream result whose provider has accepted the request: the parts up to the first output are
 * read ahead, and a "too long" rejection among them is thrown (so the call can be prepared again)
 * instead of being streamed; the parts read are then streamed first, unchanged. `onUsage` is
 * called with the usage of the `finish` part.
 */
export async function acceptedStream<Result extends { stream: ReadableStream<StreamPartLike> }>(
  result: Result,
  onUsage: (usage: ProviderUsage) => void,
): Promise<Result> {
  const reader = result.stream.getReader();
  const ahead: StreamPartLike[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    ahead.push(value);
    if (value.type === 'error' && detectContextOverflow(value.error)) {
      await reader.cancel().catch(() => {});
      throw value.error;
    }
    if (!PREAMBLE_PARTS.has(value.type)) break;
  }
  const observe = (part: StreamPartLike) => {
    if (part.type !== 'finish') return;
    const usage = providerUsageOf(part.usage);
    if (usage) onUsage(usage);
  };
  const stream = new ReadableStream<StreamPartLike>({
    start(controller) {
      for (const part of ahead) {
        observe(part);
        controller.enqueue(part);
      }
    },
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) {
        controller.close();
        return;
      }
      observe(value);
      controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  return { ...result, stream };
}

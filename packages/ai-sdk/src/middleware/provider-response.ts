import { detectContextOverflow, type ProviderUsage } from '@ctxmem/core';

/** A stream part of a language model, as far as ctxmem reads it (V3 and V4 alike). */
export interface StreamPartLike {
  type: string;
  usage?: unknown;
  error?: unknown;
}

/** Parts a provider sends before any output: a rejection may still follow them. */
const PREAMBLE_PARTS: ReadonlySet<string> = new Set(['stream-start', 'response-metadata', 'raw']);

/**
 * The input tokens of a language model's usage: `inputTokens.total` (AI SDK 6 and 7, V3 and V4:
 * cached reads and writes included, as `@ai-sdk/anthropic` and `@ai-sdk/openai` fill it), else
 * the sum of its parts, else a plain number (the V2 shape). Undefined when the provider reported
 * none.
 */
export function providerUsageOf(usage: unknown): ProviderUsage | undefined {
  const input = (usage as { inputTokens?: unknown } | undefined)?.inputTokens;
  if (typeof input === 'number') return valid(input);
  if (typeof input !== 'object' || input === null) return undefined;
  const { total, noCache, cacheRead, cacheWrite } = input as Record<string, unknown>;
  if (typeof total === 'number') return valid(total);
  const parts = [noCache, cacheRead, cacheWrite].filter(
    (part): part is number => typeof part === 'number',
  );
  return parts.length === 0 ? undefined : valid(parts.reduce((sum, part) => sum + part, 0));
}

function valid(inputTokens: number): ProviderUsage | undefined {
  return Number.isFinite(inputTokens) && inputTokens > 0 ? { inputTokens } : undefined;
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

import { describe, expect, it } from 'vitest';
import { anthropicTooLong } from '../overflow-provider.test-support.js';
import { acceptedStream, providerUsageOf, type StreamPartLike } from './provider-response.js';

function streamOf(parts: StreamPartLike[]) {
  return new ReadableStream<StreamPartLike>({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
}

async function read(stream: ReadableStream<StreamPartLike>) {
  const parts: StreamPartLike[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

describe('providerUsageOf', () => {
  it('takes the total input, cached reads and writes included', () => {
    // @ai-sdk/anthropic's convertAnthropicUsage: total = input + cache creation + cache read.
    expect(
      providerUsageOf({
        inputTokens: { total: 12_000, noCache: 2_000, cacheRead: 9_000, cacheWrite: 1_000 },
      }),
    ).toEqual({ inputTokens: 12_000 });
    // Without a total, the parts are added up.
    expect(
      providerUsageOf({ inputTokens: { total: undefined, noCache: 2_000, cacheRead: 9_000 } }),
    ).toEqual({ inputTokens: 11_000 });
    // AI SDK 5's (V2) number.
    expect(providerUsageOf({ inputTokens: 900 })).toEqual({ inputTokens: 900 });
    expect(providerUsageOf({ inputTokens: { total: undefined } })).toBeUndefined();
    expect(providerUsageOf(undefined)).toBeUndefined();
    expect(providerUsageOf({ inputTokens: { total: 0 } })).toBeUndefined();
  });
});

describe('acceptedStream', () => {
  it('streams every part unchanged and hands over the usage of the finish part', async () => {
    const parts: StreamPartLike[] = [
      { type: 'stream-start' },
      { type: 'response-metadata' },
      { type: 'text-delta' },
      { type: 'finish', usage: { inputTokens: { total: 4_321 } } },
    ];
    const usages: unknown[] = [];
    const result = await acceptedStream({ stream: streamOf(parts), request: 'kept' }, (usage) =>
      usages.push(usage),
    );
    expect(result.request).toBe('kept');
    expect(await read(result.stream)).toEqual(parts);
    expect(usages).toEqual([{ inputTokens: 4_321 }]);
  });

  it('throws a rejection that arrives before the first output, and streams any other error', async () => {
    const rejection = anthropicTooLong(30_000, 16_000);
    await expect(
      acceptedStream(
        { stream: streamOf([{ type: 'stream-start' }, { type: 'error', error: rejection }]) },
        () => {},
      ),
    ).rejects.toBe(rejection);
    const other = { type: 'error', error: new Error('Overloaded') };
    const result = await acceptedStream(
      { stream: streamOf([{ type: 'stream-start' }, other]) },
      () => {},
    );
    expect(await read(result.stream)).toEqual([{ type: 'stream-start' }, other]);
  });
});

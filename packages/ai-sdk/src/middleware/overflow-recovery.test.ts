/*
 * The middleware against a provider that counts 1.6 times what `o200k_base` counts and rejects
 * what does not fit as Anthropic does. How the AI SDK runs a middleware (ai 7
 * src/middleware/wrap-language-model.ts, ai 6 the same): `transformParams` first, then
 * `wrapGenerate` / `wrapStream` with the transformed params, `doGenerate` / `doStream` bound to
 * them, and the model below; `generateText` and `streamText` retry only errors marked retryable.
 */
import {
  ContextOverflowError,
  type CtxmemEvent,
  createExtractiveSummarizer,
  createTokenCounter,
} from '@ctxmem/core';
import { generateText, type ModelMessage, streamText, wrapLanguageModel } from 'ai';
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test';
import {
  generateText as generateTextV6,
  type ModelMessage as ModelMessageV6,
  streamText as streamTextV6,
  wrapLanguageModel as wrapLanguageModelV6,
} from 'ai-v6';
import {
  convertArrayToReadableStream as convertArrayToReadableStreamV6,
  MockLanguageModelV3,
} from 'ai-v6/test';
import { describe, expect, it } from 'vitest';
import { streamChunks, textResult, words } from '../mock-agent.test-support.js';
import {
  createOverflowProvider,
  responsesTooLong,
  usageOf,
} from '../overflow-provider.test-support.js';
import { contextMemoryMiddleware, contextMemoryMiddlewareV3 } from './context-memory-middleware.js';

const WINDOW = 16_000;
const OUTPUT = 1_000;
const FACTOR = 1.6;
const counter = createTokenCounter();

/** A conversation of `rounds` user and assistant turns, then a question. */
function history(rounds: number): ModelMessage[] {
  const messages: ModelMessage[] = [];
  for (let turn = 1; turn <= rounds; turn++) {
    messages.push(
      { role: 'user', content: `Turn ${turn}: ${words(turn, 60)}?` },
      { role: 'assistant', content: words(turn + 1_000, 220) },
    );
  }
  messages.push({ role: 'user', content: `So what did we decide about ${words(7, 8)}?` });
  return messages;
}

/**
 * Rounds that fit ctxmem's first budget (ratio 1.2 before any report: a 10,666-token trigger)
 * uncompacted, but not a provider counting 1.6 times as much with 1,000 tokens of output.
 */
const OVERFLOWING_ROUNDS = 28;

function setup({ numbers = true, factor = FACTOR } = {}) {
  const provider = createOverflowProvider({ factor, contextWindow: WINDOW, numbers });
  const answer = (options: {
    prompt: unknown;
    tools?: readonly unknown[];
    maxOutputTokens?: number;
  }) => {
    const inputTokens = provider.judge(options);
    return { ...textResult('Here is the answer.'), usage: usageOf(inputTokens, 100) };
  };
  const model = new MockLanguageModelV4({
    modelId: 'claude-sonnet-4-5',
    doGenerate: async (options) => answer(options) as never,
    doStream: async (options) =>
      ({ stream: convertArrayToReadableStream(streamChunks(answer(options) as never)) }) as never,
  });
  const events: CtxmemEvent[] = [];
  const middleware = contextMemoryMiddleware({
    contextWindow: WINDOW,
    summarizer: createExtractiveSummarizer({ counter }),
    onEvent: (event) => events.push(event),
  });
  const wrapped = wrapLanguageModel({ model, middleware });
  const overflows = () => events.filter((event) => event.type === 'context-overflow');
  return { provider, model, middleware, wrapped, events, overflows };
}

describe('the middleware recovers from a "too long" rejection (AI SDK 7)', () => {
  it('generateText: prepares the call again, smaller, and sends it once more', async () => {
    const { provider, wrapped, overflows, middleware } = setup();
    const result = await generateText({
      model: wrapped,
      messages: history(OVERFLOWING_ROUNDS),
      maxOutputTokens: OUTPUT,
      providerOptions: { ctxmem: { sessionId: 'generate' } },
    });
    expect(result.text).toBe('Here is the answer.');
    expect(provider.requests.map((request) => request.accepted)).toEqual([false, true]);
    expect(overflows()).toMatchObject([
      {
        outcome: 'retrying',
        providerTokens: provider.requests[0]!.providerTokens,
        limitTokens: WINDOW,
      },
    ]);
    // What the provider counted (the rejection, then the usage) taught the manager its ratio.
    const { ratio } = middleware.manager()!.calibration();
    expect(ratio).toBeGreaterThanOrEqual(FACTOR);
  });

  it('generateText: after learning, the next turns are not rejected', async () => {
    const { provider, wrapped } = setup();
    const messages = history(OVERFLOWING_ROUNDS);
    for (let turn = 0; turn < 4; turn++) {
      const result = await generateText({
        model: wrapped,
        messages,
        maxOutputTokens: OUTPUT,
        providerOptions: { ctxmem: { sessionId: 'learn' } },
      });
      messages.push(
        { role: 'assistant', content: `${result.text} ${words(turn, 200)}` },
        { role: 'user', content: `And turn ${turn}? ${words(turn + 50, 40)}` },
      );
    }
    expect(provider.requests.filter((request) => !request.accepted)).toHaveLength(1);
    // The budget then uses most of the provider's window, not a guess's share of it.
    const last = provider.requests.at(-1)!.providerTokens;
    expect(last + OUTPUT).toBeLessThanOrEqual(WINDOW);
  });

  it('streamText: a rejection of doStream is retried before anything is streamed', async () => {
    const { provider, wrapped, overflows, middleware } = setup();
    const result = streamText({
      model: wrapped,
      messages: history(OVERFLOWING_ROUNDS),
      maxOutputTokens: OUTPUT,
      providerOptions: { ctxmem: { sessionId: 'stream' } },
    });
    expect(await result.text).toBe('Here is the answer.');
    expect(provider.requests.map((request) => request.accepted)).toEqual([false, true]);
    expect(overflows()).toHaveLength(1);
    // The finish part's usage reached the manager: the rejection and the usage, two reports.
    expect(middleware.manager()!.calibration().observations).toBe(2);
  });

  it('streamText: a rejection in the first part of the stream is retried and never streamed', async () => {
    // The OpenAI Responses API can accept the request and send the error as a stream event
    // (anomalyco/opencode#6071): `@ai-sdk/openai` usually throws it before returning, but a
    // provider that streams it as an `error` part is retried just the same.
    let calls = 0;
    const model = new MockLanguageModelV4({
      modelId: 'claude-sonnet-4-5',
      doStream: async () => {
        calls++;
        const chunks =
          calls === 1
            ? [
                { type: 'stream-start', warnings: [] },
                { type: 'error', error: responsesTooLong() },
              ]
            : streamChunks(textResult('Streamed after the retry.'));
        return { stream: convertArrayToReadableStream(chunks) } as never;
      },
    });
    const errors: unknown[] = [];
    const wrapped = wrapLanguageModel({
      model,
      middleware: contextMemoryMiddleware({
        contextWindow: WINDOW,
        summarizer: createExtractiveSummarizer({ counter }),
      }),
    });
    const result = streamText({
      model: wrapped,
      messages: history(20),
      onError: ({ error }) => {
        errors.push(error);
      },
    });
    expect(await result.text).toBe('Streamed after the retry.');
    expect(calls).toBe(2);
    expect(errors).toEqual([]);
  });

  it('without numbers in the rejection, retries with a smaller share of the prompt', async () => {
    const { provider, wrapped, overflows } = setup({ numbers: false });
    const result = await generateText({
      model: wrapped,
      messages: history(OVERFLOWING_ROUNDS),
      maxOutputTokens: OUTPUT,
    });
    expect(result.text).toBe('Here is the answer.');
    expect(provider.requests.map((request) => request.accepted)).toEqual([false, true]);
    expect(overflows()[0]).not.toHaveProperty('providerTokens');
  });

  it('a second rejection fails the call with ContextOverflowError carrying both counts', async () => {
    // A provider counting 4 times as much that does not say by how much: the retry's smaller
    // share does not fit either. (With its numbers, ctxmem's retry would have fitted.)
    const { provider, wrapped, overflows } = setup({ factor: 4, numbers: false });
    const error = await generateText({
      model: wrapped,
      messages: history(OVERFLOWING_ROUNDS),
      maxOutputTokens: OUTPUT,
      maxRetries: 0,
    }).catch((caught: unknown) => caught);
    expect(ContextOverflowError.isInstance(error)).toBe(true);
    const overflow = error as ContextOverflowError;
    expect(provider.requests).toHaveLength(2);
    const [first, second] = overflow.attempts;
    expect(second!.countedTokens).toBeLessThan(first!.countedTokens!);
    expect(overflow.countedTokens).toBe(second!.countedTokens);
    expect(overflow.cause).toMatchObject({ statusCode: 400 });
    expect(overflows().map((event) => event.outcome)).toEqual(['retrying', 'rejected-again']);
  });

  it('does not retry a call whose abort signal has fired', async () => {
    const controller = new AbortController();
    const { provider, model } = setup();
    const wrapped = wrapLanguageModel({
      model: new MockLanguageModelV4({
        modelId: 'claude-sonnet-4-5',
        doGenerate: async (options) => {
          controller.abort();
          return model.doGenerate(options);
        },
      }),
      middleware: contextMemoryMiddleware({
        contextWindow: WINDOW,
        summarizer: createExtractiveSummarizer({ counter }),
      }),
    });
    await expect(
      generateText({
        model: wrapped,
        messages: history(OVERFLOWING_ROUNDS),
        maxOutputTokens: OUTPUT,
        abortSignal: controller.signal,
        maxRetries: 0,
      }),
    ).rejects.toThrow();
    expect(provider.requests).toHaveLength(1);
  });

  it('passes other failures through untouched, once', async () => {
    let calls = 0;
    const failure = Object.assign(new Error('Overloaded'), { statusCode: 529 });
    const wrapped = wrapLanguageModel({
      model: new MockLanguageModelV4({
        modelId: 'claude-sonnet-4-5',
        doGenerate: async () => {
          calls++;
          throw failure;
        },
      }),
      middleware: contextMemoryMiddleware({ contextWindow: WINDOW }),
    });
    const error = await generateText({
      model: wrapped,
      messages: history(3),
      maxRetries: 0,
    }).catch((caught: unknown) => caught);
    expect(error).toBe(failure);
    expect(calls).toBe(1);
  });
});

describe('the middleware recovers from a "too long" rejection (AI SDK 6)', () => {
  function setupV6() {
    const provider = createOverflowProvider({
      factor: FACTOR,
      contextWindow: WINDOW,
      version: 'v3',
    });
    const answer = (options: {
      prompt: unknown;
      tools?: readonly unknown[];
      maxOutputTokens?: number;
    }) => ({
      ...textResult('Here is the answer.'),
      usage: usageOf(provider.judge(options)),
    });
    const model = new MockLanguageModelV3({
      modelId: 'claude-sonnet-4-5',
      doGenerate: async (options) => answer(options) as never,
      doStream: async (options) =>
        ({
          stream: convertArrayToReadableStreamV6(streamChunks(answer(options) as never)),
        }) as never,
    });
    const middleware = contextMemoryMiddlewareV3({
      contextWindow: WINDOW,
      summarizer: createExtractiveSummarizer({ counter }),
    });
    return { provider, middleware, wrapped: wrapLanguageModelV6({ model, middleware }) };
  }

  it('generateText and streamText retry once and learn from the V3 usage', async () => {
    const { provider, middleware, wrapped } = setupV6();
    const messages = history(OVERFLOWING_ROUNDS) as ModelMessageV6[];
    const generated = await generateTextV6({ model: wrapped, messages, maxOutputTokens: OUTPUT });
    expect(generated.text).toBe('Here is the answer.');
    expect(provider.requests.map((request) => request.accepted)).toEqual([false, true]);
    const learned = middleware.manager()!.calibration();
    expect(learned.ratio).toBeGreaterThanOrEqual(FACTOR);

    const streamed = streamTextV6({
      model: wrapped,
      messages: [
        ...messages,
        { role: 'assistant', content: 'More.' },
        { role: 'user', content: 'And?' },
      ],
      maxOutputTokens: OUTPUT,
    });
    expect(await streamed.text).toBe('Here is the answer.');
    expect(provider.requests.at(-1)!.accepted).toBe(true);
    expect(middleware.manager()!.calibration().observations).toBe(learned.observations + 1);
  });

  it('a stream rejected twice fails with ContextOverflowError', async () => {
    const model = new MockLanguageModelV3({
      modelId: 'claude-sonnet-4-5',
      doStream: async () => {
        throw responsesTooLong();
      },
    });
    const wrapped = wrapLanguageModelV6({
      model,
      middleware: contextMemoryMiddlewareV3({ contextWindow: WINDOW }),
    });
    const errors: unknown[] = [];
    const result = streamTextV6({
      model: wrapped,
      messages: history(4) as ModelMessageV6[],
      maxRetries: 0,
      onError: ({ error }) => {
        errors.push(error);
      },
    });
    await result.consumeStream();
    expect(errors).toHaveLength(1);
    expect(ContextOverflowError.isInstance(errors[0])).toBe(true);
    expect(model.doStreamCalls).toHaveLength(2);
  });
});

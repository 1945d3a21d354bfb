import type { CtxmemEvent } from '@ctxmem/core';
import { SUMMARY_HEADING } from '@ctxmem/core/adapter-kit';
import { checkCompactionInvariants } from '@ctxmem/core/test';
import {
  generateText,
  jsonSchema,
  type LanguageModelMiddleware,
  type ModelMessage,
  stepCountIs,
  streamText,
  tool,
  wrapLanguageModel,
} from 'ai-v6';
import { convertArrayToReadableStream, MockLanguageModelV3 } from 'ai-v6/test';
import { describe, expect, it } from 'vitest';
import { fromV3Prompt, type V3Prompt } from '../convert/index.js';
import {
  createScriptedAgent,
  isSummaryPrompt,
  lookupTool,
  streamChunks,
  summaryAnswer,
  textResult,
  words,
} from '../mock-agent.test-support.js';
import {
  type ContextMemoryMiddlewareV3,
  contextMemoryMiddleware,
  contextMemoryMiddlewareV3,
} from './context-memory-middleware.js';

const SYSTEM = 'You are a careful research agent.';

const lookup = lookupTool({ tool, jsonSchema });

function setup(middlewareFactory: () => ContextMemoryMiddlewareV3) {
  const agent = createScriptedAgent();
  const model = new MockLanguageModelV3({
    modelId: 'mock-agent-v3',
    doGenerate: async ({ prompt }) => agent.respond(prompt) as never,
    doStream: async ({ prompt }) =>
      ({ stream: convertArrayToReadableStream(streamChunks(agent.respond(prompt))) }) as never,
  });
  const inputs: V3Prompt[] = [];
  const recorder: LanguageModelMiddleware = {
    specificationVersion: 'v3',
    transformParams: async ({ params }) => {
      inputs.push(params.prompt as V3Prompt);
      return params;
    },
  };
  const middleware = middlewareFactory();
  const wrapped = wrapLanguageModel({ model, middleware: [recorder, middleware] });
  return { agent, model, middleware, wrapped, inputs };
}

async function converse(
  wrapped: ReturnType<typeof setup>['wrapped'],
  turns: number,
  stream: boolean,
) {
  const messages: ModelMessage[] = [];
  for (let turn = 1; turn <= turns; turn++) {
    messages.push({ role: 'user', content: `Question ${turn}: ${words(turn, 25)}?` });
    const settings = {
      model: wrapped,
      system: SYSTEM,
      messages,
      tools: { lookup },
      stopWhen: stepCountIs(5),
      providerOptions: { ctxmem: { sessionId: 'v3-session' }, openai: { store: false } },
    };
    if (stream) {
      const result = streamText(settings);
      await result.consumeStream();
      messages.push(...(await result.response).messages);
    } else {
      messages.push(...(await generateText(settings)).response.messages);
    }
  }
}

function expectEveryPromptValid(context: ReturnType<typeof setup>) {
  const manager = context.middleware.manager()!;
  const calls = [...context.model.doGenerateCalls, ...context.model.doStreamCalls].filter(
    (call) => !isSummaryPrompt(call.prompt),
  );
  expect(calls).toHaveLength(context.inputs.length);
  calls.forEach((call, index) => {
    expect(
      checkCompactionInvariants(fromV3Prompt(context.inputs[index]!), fromV3Prompt(call.prompt), {
        budgetTokens: manager.budget.budgetTokens,
        counter: manager.counter,
      }),
      `call ${index}`,
    ).toEqual([]);
    expect(call.providerOptions).toEqual({ openai: { store: false } });
  });
  const last = calls.at(-1)!.prompt;
  expect(last[0]).toEqual({ role: 'system', content: SYSTEM });
  expect(
    last.some(
      (message) => message.role === 'system' && message.content.startsWith(SUMMARY_HEADING),
    ),
  ).toBe(true);
}

describe('contextMemoryMiddlewareV3 with AI SDK 6', () => {
  it('keeps every prompt of a long generateText tool loop valid and within budget', async () => {
    let summaries = 0;
    const events: CtxmemEvent[] = [];
    const summarizerModel = new MockLanguageModelV3({
      modelId: 'gpt-4o-mini',
      doGenerate: async () => textResult(summaryAnswer(String(++summaries))) as never,
    });
    const context = setup(() =>
      contextMemoryMiddlewareV3({
        contextWindow: 8_000,
        backgroundCompaction: false,
        summarizerModel,
        onEvent: (event) => events.push(event),
      }),
    );
    await converse(context.wrapped, 25, false);
    expectEveryPromptValid(context);
    const compactions = events.filter((event) => event.type === 'compaction');
    expect(compactions.length).toBeGreaterThanOrEqual(2);
    expect(compactions.length).toBeLessThan(context.inputs.length / 4);
    expect(summaries).toBeGreaterThanOrEqual(1);
    expect(summaries).toBeLessThanOrEqual(compactions.length);
  });

  it('keeps every streamed prompt valid, with the wrapped model as summarizer', async () => {
    const context = setup(() =>
      contextMemoryMiddlewareV3({ contextWindow: 8_000, backgroundCompaction: false }),
    );
    await converse(context.wrapped, 20, true);
    expectEveryPromptValid(context);
    expect(context.agent.summaryCalls).toBeGreaterThanOrEqual(1);
  });

  it('detects V3 models at run time when the V4-typed middleware is used', async () => {
    const context = setup(
      () =>
        contextMemoryMiddleware({
          contextWindow: 8_000,
          backgroundCompaction: false,
        }) as unknown as ContextMemoryMiddlewareV3,
    );
    await converse(context.wrapped, 20, false);
    expectEveryPromptValid(context);
  });
});

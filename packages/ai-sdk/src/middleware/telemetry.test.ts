/**
 * ctxmem's spans inside the AI SDK's own telemetry. AI SDK 7 makes its spans through
 * `@ai-sdk/otel`, whose `executeLanguageModelCall` runs the model call (the wrapped model's
 * `doGenerate` / `doStream`, and so this middleware) inside the context of its `chat <model>`
 * span (node_modules/@ai-sdk/otel/src/open-telemetry.ts; ai/src/generate-text/generate-text.ts
 * calls it around `stepModel.doGenerate`). AI SDK 6 runs `doGenerate` inside its
 * `ai.generateText.doGenerate` span (`recordSpan` with `startActiveSpan`).
 */

import { OpenTelemetry } from '@ai-sdk/otel';
import type { CtxmemEvent } from '@ctxmem/core';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import {
  generateText,
  jsonSchema,
  type ModelMessage,
  registerTelemetry,
  stepCountIs,
  streamText,
  tool,
  wrapLanguageModel,
} from 'ai';
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test';
import * as aiV6 from 'ai-v6';
import { MockLanguageModelV3 } from 'ai-v6/test';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { registerSpanRecorder } from '../../../../test/setup/span-recorder.js';
import {
  createScriptedAgent,
  lookupTool,
  streamChunks,
  summaryAnswer,
  textResult,
  words,
} from '../mock-agent.test-support.js';
import { contextMemoryMiddleware, contextMemoryMiddlewareV3 } from './context-memory-middleware.js';

// The newest @opentelemetry/api copy registers the globals (see test/setup/span-recorder.ts).
const recorder = registerSpanRecorder();
registerTelemetry(new OpenTelemetry());
afterAll(async () => {
  globalThis.AI_SDK_TELEMETRY_INTEGRATIONS = [];
  await recorder.shutdown();
});
beforeEach(() => recorder.reset());

function scriptedModels() {
  const agent = createScriptedAgent();
  const model = new MockLanguageModelV4({
    modelId: 'mock-agent',
    doGenerate: async ({ prompt }) => agent.respond(prompt) as never,
    doStream: async ({ prompt }) =>
      ({ stream: convertArrayToReadableStream(streamChunks(agent.respond(prompt))) }) as never,
  });
  let summaries = 0;
  const summarizerModel = new MockLanguageModelV4({
    modelId: 'gpt-4o-mini',
    doGenerate: async () => textResult(summaryAnswer(String(++summaries))) as never,
  });
  return { model, summarizerModel };
}

/** Every text of the conversation: what the model was sent and what it answered. */
function conversationTexts(messages: readonly ModelMessage[]): string[] {
  const texts: string[] = [];
  const visit = (value: unknown) => {
    if (typeof value === 'string') {
      if (value.length >= 12) texts.push(value);
    } else if (Array.isArray(value)) value.forEach(visit);
    else if (typeof value === 'object' && value !== null) Object.values(value).forEach(visit);
  };
  visit(messages);
  return texts;
}

function expectNoContentInCtxmemSpans(texts: readonly string[]) {
  const recorded = recorder.recordedTexts('ctxmem');
  expect(recorded.length).toBeGreaterThan(0);
  for (const text of texts) {
    for (const value of recorded) {
      expect(value.includes(text), `a ctxmem span holds "${text.slice(0, 40)}…"`).toBe(false);
      if (value.length >= 24) expect(text.includes(value), `a span quotes "${value}"`).toBe(false);
    }
  }
}

/** The spans of the compacting call: ctxmem's prepare and what it sits under. */
function compactingCall() {
  const [compaction] = recorder.named('ctxmem.compaction');
  expect(compaction, 'a ctxmem.compaction span').toBeDefined();
  const prepare = recorder.parentOf(compaction!)!;
  expect(prepare.name).toBe('ctxmem.prepare');
  return { compaction: compaction!, prepare, parent: recorder.parentOf(prepare) };
}

function ancestors(span: ReadableSpan): string[] {
  const names: string[] = [];
  for (let current = recorder.parentOf(span); current; current = recorder.parentOf(current)) {
    names.push(current.name);
  }
  return names;
}

describe('ctxmem spans under the AI SDK 7 telemetry (@ai-sdk/otel)', () => {
  for (const mode of ['generateText', 'streamText'] as const) {
    it(`nests a compacting ${mode} call under the SDK’s model-call span, without message text`, async () => {
      const { model, summarizerModel } = scriptedModels();
      const events: CtxmemEvent[] = [];
      const middleware = contextMemoryMiddleware({
        contextWindow: 8_000,
        summarizerModel,
        telemetry: { enabled: true },
        onEvent: (event) => events.push(event),
      });
      const wrapped = wrapLanguageModel({ model, middleware });
      const lookup = lookupTool({ tool, jsonSchema });
      const messages: ModelMessage[] = [];
      for (let turn = 1; turn <= 30; turn++) {
        if (events.some((event) => event.type === 'compaction')) break;
        recorder.reset();
        messages.push({ role: 'user', content: `Question ${turn}: ${words(turn, 25)}?` });
        const settings = {
          model: wrapped,
          instructions: 'You are a careful research agent.',
          messages,
          tools: { lookup },
          stopWhen: stepCountIs(6),
          providerOptions: { ctxmem: { userId: 'user-7', sessionId: 'session-7' } },
        };
        if (mode === 'streamText') {
          const result = streamText(settings);
          await result.consumeStream();
          messages.push(...(await result.responseMessages));
        } else {
          messages.push(...(await generateText(settings)).responseMessages);
        }
      }
      expect(events.some((event) => event.type === 'compaction')).toBe(true);

      const { compaction, prepare, parent } = compactingCall();
      // The AI SDK's span of this model call: `chat mock-agent`, in a step of the call's root.
      expect(parent?.name).toBe('chat mock-agent');
      expect(parent?.instrumentationScope.name).not.toBe('ctxmem');
      expect(parent?.attributes['gen_ai.operation.name']).toBe('chat');
      expect(ancestors(prepare)).toEqual([
        'chat mock-agent',
        expect.stringMatching(/^step \d+$/),
        expect.any(String),
      ]);
      expect(prepare.attributes).toMatchObject({
        'ctxmem.model': 'mock-agent',
        'ctxmem.compacted': true,
        'ctxmem.compaction.source': 'compacted',
      });
      expect(compaction.attributes['ctxmem.tokens.before']).toBeGreaterThan(
        compaction.attributes['ctxmem.tokens.after'] as number,
      );
      // The summarizer's own model call, with the GenAI attributes its result reports.
      const [summary] = recorder.named('chat gpt-4o-mini');
      expect(recorder.parentOf(summary!)?.name).toBe('ctxmem.summarize');
      expect(recorder.isUnder(summary!, compaction)).toBe(true);
      expect(summary!.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gpt-4o-mini',
        'gen_ai.usage.input_tokens': 10,
        'gen_ai.usage.output_tokens': 5,
        'ctxmem.operation': 'summarize',
      });
      // Every span of ctxmem's in this turn sits under the AI SDK's span of its step's model call.
      const ctxmemSpans = recorder
        .spans()
        .filter((span) => span.instrumentationScope.name === 'ctxmem');
      expect(recorder.named('ctxmem.prepare').length).toBeGreaterThan(1);
      for (const span of ctxmemSpans) {
        expect(ancestors(span), span.name).toContain('chat mock-agent');
      }
      expectNoContentInCtxmemSpans(conversationTexts(messages));
    });
  }
});

describe('ctxmem spans under the AI SDK 6 telemetry (experimental_telemetry)', () => {
  it('nests a compacting generateText call under ai.generateText.doGenerate', async () => {
    const agent = createScriptedAgent();
    const model = new MockLanguageModelV3({
      modelId: 'mock-agent-v3',
      doGenerate: async ({ prompt }) => agent.respond(prompt) as never,
    });
    let summaries = 0;
    const summarizerModel = new MockLanguageModelV3({
      modelId: 'gpt-4o-mini',
      doGenerate: async () => textResult(summaryAnswer(String(++summaries))) as never,
    });
    const events: CtxmemEvent[] = [];
    const middleware = contextMemoryMiddlewareV3({
      contextWindow: 8_000,
      summarizerModel,
      telemetry: { enabled: true },
      onEvent: (event) => events.push(event),
    });
    const wrapped = aiV6.wrapLanguageModel({ model, middleware });
    const lookup = lookupTool({ tool: aiV6.tool, jsonSchema: aiV6.jsonSchema });
    const messages: aiV6.ModelMessage[] = [];
    for (let turn = 1; turn <= 30; turn++) {
      if (events.some((event) => event.type === 'compaction')) break;
      recorder.reset();
      messages.push({ role: 'user', content: `Question ${turn}: ${words(turn, 25)}?` });
      const result = await aiV6.generateText({
        model: wrapped,
        system: 'You are a careful research agent.',
        messages,
        tools: { lookup },
        stopWhen: aiV6.stepCountIs(6),
        providerOptions: { ctxmem: { sessionId: 'session-6' } },
        experimental_telemetry: { isEnabled: true },
      });
      messages.push(...result.response.messages);
    }
    expect(events.some((event) => event.type === 'compaction')).toBe(true);

    const { prepare, parent } = compactingCall();
    expect(parent?.name).toBe('ai.generateText.doGenerate');
    expect(ancestors(prepare)).toEqual(['ai.generateText.doGenerate', 'ai.generateText']);
    expect(recorder.named('chat gpt-4o-mini').length).toBeGreaterThanOrEqual(1);
    expectNoContentInCtxmemSpans(conversationTexts(messages as ModelMessage[]));
  });
});

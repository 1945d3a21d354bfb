/**
 * ctxmem's spans in a LangChain agent. LangChain traces its runs with callbacks (LangSmith's
 * tracer), not with OpenTelemetry contexts: inside a `createAgent` middleware hook the active
 * OpenTelemetry context is the one active where `agent.invoke` was called (LangGraph's async work
 * keeps it through AsyncLocalStorage). So ctxmem's spans nest under the app's span around the run
 * (or a LangSmith `traceable` in OTel mode, which makes its run an active span:
 * langsmith/dist/traceable.js `maybeCreateOtelContext`), beside LangChain's own run spans.
 */

import { HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { type Span, trace } from '@opentelemetry/api';
import { type AgentMiddleware, createAgent, createMiddleware } from 'langchain';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { registerSpanRecorder } from '../../../../test/setup/span-recorder.js';
import { createScriptedAgent, textOf, words } from '../langchain.test-support.js';
import { contextMemoryMiddleware } from './index.js';

const recorder = registerSpanRecorder();
afterAll(() => recorder.shutdown());

const lookup = tool(
  async ({ query }: { query: string }) => `Result for ${query}: ${words(query.length * 7, 250)}`,
  {
    name: 'lookup',
    description: 'Looks a query up.',
    schema: z.object({ query: z.string(), page: z.number().optional() }),
  },
);

describe('ctxmem spans in a LangChain agent', () => {
  it('nest under the span active where the agent runs, with no message text', async () => {
    const { model } = createScriptedAgent({ toolSteps: 2 });
    const memory = contextMemoryMiddleware({
      contextWindow: 4_000,
      summarizerModel: model,
      telemetry: { enabled: true },
    });
    const activeInHook: Array<Span | undefined> = [];
    const spy = createMiddleware({
      name: 'ActiveSpanSpy',
      wrapModelCall: (request, handler) => {
        activeInHook.push(trace.getActiveSpan());
        return handler(request);
      },
    });
    const agent = createAgent({
      model,
      tools: [lookup],
      systemPrompt: 'You are a research agent.',
      middleware: [spy, memory] as AgentMiddleware[],
    });
    const tracer = trace.getTracer('app');
    const texts: string[] = [];
    let messages: Awaited<ReturnType<typeof agent.invoke>>['messages'] = [];
    for (let turn = 0; turn < 8; turn++) {
      const state = await tracer.startActiveSpan(`app.turn ${turn}`, async (span) => {
        try {
          return await agent.invoke(
            {
              messages: [
                ...messages,
                new HumanMessage(`Task ${turn}: research ${words(turn, 20)}`),
              ],
            },
            { configurable: { thread_id: 'thread-otel' } },
          );
        } finally {
          span.end();
        }
      });
      messages = state.messages;
    }
    for (const message of messages) texts.push(textOf(message));

    const compactions = recorder.named('ctxmem.compaction');
    expect(compactions.length).toBeGreaterThanOrEqual(1);
    const turns = recorder.named('app.turn*');
    expect(turns).toHaveLength(8);
    // What a hook sees is the app's span: LangChain adds no OpenTelemetry context of its own.
    expect(activeInHook.length).toBeGreaterThan(8);
    for (const span of activeInHook) expect(span?.spanContext().traceId).toBeDefined();
    const turnIds = new Set(turns.map((span) => span.spanContext().spanId));
    for (const span of activeInHook) expect(turnIds.has(span!.spanContext().spanId)).toBe(true);

    for (const prepare of recorder.named('ctxmem.prepare')) {
      expect(recorder.parentOf(prepare)?.name).toMatch(/^app\.turn \d$/);
    }
    const [compaction] = compactions;
    expect(recorder.parentOf(compaction!)?.name).toBe('ctxmem.prepare');
    // The summarizer's LangChain model call, with the GenAI attributes its answer reports.
    const summary = recorder
      .named('chat scripted-model')
      .find((span) => recorder.isUnder(span, compaction!));
    expect(summary?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'scripted-model',
      'ctxmem.operation': 'summarize',
    });

    const recorded = recorder.recordedTexts('ctxmem');
    for (const text of texts.filter((value) => value.length >= 12)) {
      for (const value of recorded) expect(value.includes(text)).toBe(false);
    }
  });
});

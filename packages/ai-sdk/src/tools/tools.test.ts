import {
  createInMemoryHistoryStore,
  createInMemoryMemoryStore,
  createInMemoryOffloadStore,
  createMemorySearch,
  EmbedderDimensionError,
  InvalidArgumentError,
} from '@ctxmem/core';
import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { MockEmbeddingModelV4, MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { contextMemoryMiddleware } from '../middleware/index.js';
import {
  isSummaryPrompt,
  summaryAnswer,
  textResult,
  toolCallResult,
  words,
} from '../mock-agent.test-support.js';
import { aiSdkEmbedder, memoryTools } from './index.js';

type Prompt = ReadonlyArray<{ role: string; content: unknown }>;

function lastToolName(prompt: Prompt): string | undefined {
  const last = prompt.at(-1);
  if (last?.role !== 'tool') return undefined;
  return (last.content as Array<{ toolName: string }>)[0]?.toolName;
}

describe('memoryTools', () => {
  it('lets the model search memory, reload an offloaded payload and recall an earlier turn', async () => {
    const store = createInMemoryMemoryStore();
    await store.add({ userId: 'u1' }, [
      { content: 'The user is allergic to peanuts.', type: 'fact' },
    ]);
    const historyStore = createInMemoryHistoryStore();
    const middleware = contextMemoryMiddleware({
      contextWindow: 8_000,
      backgroundCompaction: false,
      memory: { store, inject: false },
      historyStore,
    });
    const hugePayload = words(99, 6_000);
    let step = 0;
    const model = new MockLanguageModelV4({
      modelId: 'mock-agent',
      doGenerate: async ({ prompt }) => {
        if (isSummaryPrompt(prompt)) return textResult(summaryAnswer('tools')) as never;
        step++;
        const text = JSON.stringify(prompt);
        switch (lastToolName(prompt)) {
          case undefined:
            return (
              prompt.length > 2
                ? toolCallResult([
                    {
                      toolCallId: 's1',
                      toolName: 'search_memory',
                      input: { query: 'peanuts allergy' },
                    },
                  ])
                : textResult('Hello!')
            ) as never;
          case 'search_memory':
            return toolCallResult([
              { toolCallId: 'l1', toolName: 'lookup', input: { query: 'everything' } },
            ]) as never;
          case 'lookup': {
            const id = /reload_context\(\\"([^"\\]+)\\"\)/.exec(text)?.[1];
            return toolCallResult([
              { toolCallId: 'r1', toolName: 'reload_context', input: { id } },
            ]) as never;
          }
          case 'reload_context':
            return toolCallResult([
              { toolCallId: 'c1', toolName: 'recall_conversation', input: { turn_numbers: [1] } },
            ]) as never;
          default:
            return textResult('All done.') as never;
        }
      },
    });
    const wrapped = wrapLanguageModel({ model, middleware });
    const scope = { userId: 'u1', sessionId: 'chat-1' };
    const tools = {
      lookup: tool({
        description: 'Looks everything up.',
        inputSchema: jsonSchema<{ query: string }>({
          type: 'object',
          properties: { query: { type: 'string' } },
        }),
        execute: async () => hugePayload,
      }),
      ...memoryTools(middleware, { scope }),
    };
    expect(Object.keys(tools).sort()).toEqual([
      'lookup',
      'recall_conversation',
      'reload_context',
      'search_memory',
    ]);
    const messages = [{ role: 'user' as const, content: 'Hi, remember me?' }];
    const first = await generateText({
      model: wrapped,
      messages,
      tools,
      providerOptions: { ctxmem: scope },
    });
    const second = await generateText({
      model: wrapped,
      messages: [
        ...messages,
        ...first.responseMessages,
        { role: 'user', content: 'Find me a snack.' },
      ],
      tools,
      stopWhen: stepCountIs(6),
      providerOptions: { ctxmem: scope },
    });
    expect(step).toBe(6);
    const results = Object.fromEntries(
      second.steps
        .flatMap((item) => item.toolResults)
        .map((result) => [result.toolName, result.output]),
    ) as Record<string, Record<string, unknown>>;
    expect(JSON.stringify(results.search_memory)).toContain('allergic to peanuts');
    // The payload was offloaded out of the prompt; the tool brings it back a page at a time.
    const reloaded = results.reload_context as { content: string; page: number; pages: number };
    expect(reloaded).toMatchObject({ role: 'tool', page: 1 });
    expect(hugePayload.startsWith(reloaded.content)).toBe(true);
    expect(reloaded.content.length).toBeGreaterThan(1_000);
    expect(results.recall_conversation).toMatchObject({
      turns: [
        {
          turn: 1,
          messages: [
            { role: 'user', text: 'Hi, remember me?' },
            { role: 'assistant', text: 'Hello!' },
          ],
        },
      ],
      missing: [],
    });
  });

  it('gives the model a tool error for invalid input', async () => {
    const tools = memoryTools({ offload: createInMemoryOffloadStore() });
    expect(Object.keys(tools)).toEqual(['reload_context']);
    const model = new MockLanguageModelV4({
      doGenerate: async ({ prompt }) =>
        (lastToolName(prompt)
          ? textResult('ok')
          : toolCallResult([
              { toolCallId: 'x', toolName: 'reload_context', input: { id: '../etc/passwd' } },
            ])) as never,
    });
    const result = await generateText({
      model,
      prompt: 'Reload it.',
      tools,
      stopWhen: stepCountIs(3),
    });
    const [errorPart] = result.steps[0]!.content.filter((part) => part.type === 'tool-error');
    expect(errorPart).toBeDefined();
    expect(String((errorPart as { error: unknown }).error)).toMatch(/offload id/);
  });

  it('resolves the scope per call and rejects a source without stores', async () => {
    const store = createInMemoryMemoryStore();
    await store.add({ userId: 'u2' }, [
      { content: 'Prefers tea over coffee.', type: 'preference' },
    ]);
    const calls: string[] = [];
    const tools = memoryTools(
      { search: createMemorySearch({ store }) },
      {
        scope: (call) => {
          calls.push(call.toolCallId);
          return { userId: 'u2' };
        },
      },
    );
    const output = await tools.search_memory!.execute!(
      { query: 'tea or coffee', top_k: 3 } as never,
      {
        toolCallId: 'call-7',
        messages: [],
        context: {},
      } as never,
    );
    expect(calls).toEqual(['call-7']);
    expect(JSON.stringify(output)).toContain('Prefers tea over coffee.');
    expect(() => memoryTools({})).toThrow(InvalidArgumentError);
  });
});

describe('aiSdkEmbedder', () => {
  it('embeds with embedMany and returns L2-normalised vectors', async () => {
    const model = new MockEmbeddingModelV4({
      modelId: 'mock-embedding',
      maxEmbeddingsPerCall: 100,
      doEmbed: async ({ values }) => ({
        embeddings: values.map((value) => (value.includes('tea') ? [3, 4, 0] : [0, 0, 2])),
        warnings: [],
      }),
    });
    const embedder = aiSdkEmbedder(model, { dimensions: 3 });
    expect(embedder.id).toBe('ai-sdk:mock-provider:mock-embedding:3');
    const [tea, other] = await embedder.embed(['green tea', 'something else']);
    expect([...tea!]).toEqual([Math.fround(0.6), Math.fround(0.8), 0]);
    expect([...other!]).toEqual([0, 0, 1]);
    expect(await embedder.embed([])).toEqual([]);
    expect(model.doEmbedCalls).toHaveLength(1);

    const store = createInMemoryMemoryStore();
    await store.add({}, [{ content: 'Likes green tea.' }, { content: 'Owns a bicycle.' }]);
    const search = createMemorySearch({ store, embedder, mode: 'vector' });
    const [best] = await search.search({}, 'tea please');
    expect(best?.card.content).toBe('Likes green tea.');
  });

  it('rejects vectors of the wrong size and bad options with a typed error', async () => {
    const model = new MockEmbeddingModelV4({
      doEmbed: async ({ values }) => ({ embeddings: values.map(() => [1, 2]), warnings: [] }),
    });
    await expect(aiSdkEmbedder(model, { dimensions: 3 }).embed(['x'])).rejects.toSatisfy(
      EmbedderDimensionError.isInstance,
    );
    expect(() => aiSdkEmbedder(model, { dimensions: 0 })).toThrow(InvalidArgumentError);
  });
});

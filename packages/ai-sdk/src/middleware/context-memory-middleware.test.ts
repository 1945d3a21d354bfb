import {
  type CtxmemEvent,
  createExtractiveSummarizer,
  createInMemoryHistoryStore,
  createInMemoryMemoryStore,
  createTokenCounter,
  InvalidArgumentError,
  InvalidMessageError,
} from '@ctxmem/core';
import { FLUSH_SYSTEM_PROMPT, SUMMARY_HEADING } from '@ctxmem/core/adapter-kit';
import { brokenHistories, checkCompactionInvariants } from '@ctxmem/core/test';
import {
  generateText,
  jsonSchema,
  type LanguageModelMiddleware,
  type ModelMessage,
  stepCountIs,
  streamText,
  tool,
  wrapLanguageModel,
} from 'ai';
import { convertArrayToReadableStream, MockLanguageModelV3, MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { fromV4Prompt, toV4Prompt, type V4Prompt } from '../convert/index.js';
import {
  createScriptedAgent,
  isSummaryPrompt,
  streamChunks,
  summaryAnswer,
  textResult,
  words,
} from '../mock-agent.test-support.js';
import {
  type ContextMemoryMiddlewareOptions,
  contextMemoryMiddleware,
} from './context-memory-middleware.js';

const INSTRUCTIONS = 'You are a careful research agent. Cite the lookups you used.';

function hashText(text: string): number {
  let hash = 7;
  for (let index = 0; index < text.length; index++)
    hash = (hash * 31 + text.charCodeAt(index)) >>> 0;
  return hash;
}

/** A tool whose results are large, as real search and file tools are. */
function lookupTool(prefix = '', size = 450) {
  return tool({
    description: 'Looks something up.',
    inputSchema: jsonSchema<{ query: string; page?: number }>({
      type: 'object',
      properties: { query: { type: 'string' }, page: { type: 'number' } },
      required: ['query'],
    }),
    execute: async ({ query }) => `${prefix}${words(hashText(query), size)}`,
  });
}

interface SetupOptions extends ContextMemoryMiddlewareOptions {
  toolStepsPerTurn?: number;
  modelId?: string;
  /** Use a separate summarizer model (the default), or let the wrapped model summarize. */
  separateSummarizer?: boolean;
}

function setup({
  toolStepsPerTurn = 2,
  modelId = 'mock-agent',
  separateSummarizer = true,
  ...options
}: SetupOptions = {}) {
  const agent = createScriptedAgent({ toolStepsPerTurn });
  const model = new MockLanguageModelV4({
    modelId,
    doGenerate: async ({ prompt }) => agent.respond(prompt) as never,
    doStream: async ({ prompt }) =>
      ({ stream: convertArrayToReadableStream(streamChunks(agent.respond(prompt))) }) as never,
  });
  let summaries = 0;
  // A model id with a large registered window, so that summaries are never chunked.
  const summarizerModel = new MockLanguageModelV4({
    modelId: 'gpt-4o-mini',
    doGenerate: async () => textResult(summaryAnswer(String(++summaries))) as never,
  });
  const events: Array<{ call: number; event: CtxmemEvent }> = [];
  const inputs: V4Prompt[] = [];
  const middleware = contextMemoryMiddleware({
    contextWindow: 8_000,
    backgroundCompaction: false,
    ...(separateSummarizer ? { summarizerModel } : {}),
    ...options,
    onEvent: (event) => {
      events.push({ call: inputs.length - 1, event });
      options.onEvent?.(event);
    },
  });
  // Records the prompt as the AI SDK built it, before ctxmem transforms it.
  const recorder: LanguageModelMiddleware = {
    specificationVersion: 'v4',
    transformParams: async ({ params }) => {
      inputs.push(params.prompt as V4Prompt);
      return params;
    },
  };
  const wrapped = wrapLanguageModel({ model, middleware: [recorder, middleware] });
  const agentCalls = () =>
    [...model.doGenerateCalls, ...model.doStreamCalls].filter(
      (call) => !isSummaryPrompt(call.prompt),
    );
  const compactions = () =>
    events.filter(({ event }) => event.type === 'compaction') as Array<{
      call: number;
      event: Extract<CtxmemEvent, { type: 'compaction' }>;
    }>;
  return {
    agent,
    model,
    summarizerModel,
    middleware,
    wrapped,
    inputs,
    events,
    agentCalls,
    compactions,
    get summarizerCalls() {
      return summaries;
    },
  };
}

type Setup = ReturnType<typeof setup>;

async function runConversation(
  context: Setup,
  {
    turns,
    stream = false,
    providerOptions = { ctxmem: { sessionId: 'session-1' } },
    tools = { lookup: lookupTool() },
  }: {
    turns: number;
    stream?: boolean;
    providerOptions?: Record<string, Record<string, string | boolean>>;
    tools?: Record<string, ReturnType<typeof lookupTool>>;
  },
): Promise<ModelMessage[]> {
  const messages: ModelMessage[] = [];
  for (let turn = 1; turn <= turns; turn++) {
    messages.push({ role: 'user', content: `Question ${turn}: ${words(turn, 25)}?` });
    const settings = {
      model: context.wrapped,
      instructions: INSTRUCTIONS,
      messages,
      tools,
      stopWhen: stepCountIs(6),
      providerOptions,
    };
    if (stream) {
      const result = streamText(settings);
      await result.consumeStream();
      messages.push(...(await result.responseMessages));
    } else {
      const result = await generateText(settings);
      messages.push(...result.responseMessages);
    }
  }
  return messages;
}

/** Every prompt the model received keeps ctxmem's guarantees against the prompt it replaced. */
function expectEveryPromptValid(context: Setup) {
  const manager = context.middleware.manager();
  expect(manager).toBeDefined();
  const calls = context.agentCalls();
  expect(calls.length).toBe(context.inputs.length);
  calls.forEach((call, index) => {
    const input = fromV4Prompt(context.inputs[index]!);
    const output = fromV4Prompt(call.prompt);
    expect(
      checkCompactionInvariants(input, output, {
        budgetTokens: manager!.budget.budgetTokens,
        counter: manager!.counter,
      }),
      `call ${index}`,
    ).toEqual([]);
    expect(call.providerOptions?.ctxmem, `call ${index}`).toBeUndefined();
  });
}

describe('contextMemoryMiddleware on prompts that cannot be sent', () => {
  const model = {
    specificationVersion: 'v4',
    provider: 'test',
    modelId: 'test-model',
    doGenerate: async () => ({ content: [] }),
  } as never;

  // Protection: core's check of every new message (fields it does not know included), the hole
  // check of the prompt conversion, and a conversion cache that survives a prompt whose getters
  // throw. Without them a cycle reaches the provider, a hole crashes, or the raw getter error
  // escapes on the next call.
  it.each(brokenHistories().map((broken) => [broken.name, broken] as const))(
    'rejects %s with InvalidMessageError naming the place, on this call and the next',
    async (_name, broken) => {
      const middleware = contextMemoryMiddleware({ contextWindow: 8_000 });
      const transform = (prompt: unknown) =>
        middleware
          .transformParams({ type: 'generate', params: { prompt: prompt as V4Prompt }, model })
          .then(
            () => undefined,
            (error: unknown) => error,
          );
      // A clean prompt first: the broken one is then compared with what the cache holds.
      expect(await transform(toV4Prompt(broken.clean()))).toBeUndefined();
      for (const attempt of ['first', 'second']) {
        const error = await transform(broken.corrupt(toV4Prompt(broken.clean())));
        expect(InvalidMessageError.isInstance(error), attempt).toBe(true);
        // Conversion names the prompt, core's check the messages it was converted to: the same
        // indexes either way.
        expect((error as InvalidMessageError).path.replace(/^prompt/, 'messages'), attempt).toBe(
          broken.path,
        );
        expect((error as InvalidMessageError).message, attempt).toContain(broken.problem);
      }
    },
  );
});

describe('contextMemoryMiddleware with AI SDK 7', () => {
  it('keeps every prompt of a long multi-step tool loop valid and within budget', async () => {
    const context = setup();
    await runConversation(context, { turns: 30 });
    expectEveryPromptValid(context);

    const compactions = context.compactions();
    const calls = context.agentCalls().length;
    // The conversation is several windows long: it must have been compacted more than once…
    expect(compactions.length).toBeGreaterThanOrEqual(3);
    // …but only when a threshold was crossed, never on every call or step.
    expect(compactions.length).toBeLessThan(calls / 4);
    const compactedCalls = compactions.map(({ call }) => call);
    compactedCalls.slice(1).forEach((call, index) => {
      expect(call - compactedCalls[index]!).toBeGreaterThan(1);
    });
    // One summarizer call per compaction at most, and exactly what the reports say.
    const reported = compactions.reduce((sum, { event }) => sum + event.report.summarizerCalls, 0);
    expect(context.summarizerCalls).toBe(reported);
    expect(context.summarizerCalls).toBeGreaterThanOrEqual(1);
    expect(context.summarizerCalls).toBeLessThanOrEqual(compactions.length);
    // Once summarized, the prompt carries the rolling summary in the system block.
    const last = context.agentCalls().at(-1)!.prompt;
    expect(last[0]).toEqual({ role: 'system', content: INSTRUCTIONS });
    expect(
      last.some(
        (message) => message.role === 'system' && message.content.startsWith(SUMMARY_HEADING),
      ),
    ).toBe(true);
  });

  it('keeps every streamed prompt valid and within budget', async () => {
    const context = setup({ toolStepsPerTurn: 3 });
    await runConversation(context, { turns: 12, stream: true });
    expect(context.model.doStreamCalls.length).toBeGreaterThan(36);
    expectEveryPromptValid(context);
    expect(context.compactions().length).toBeGreaterThanOrEqual(1);
  });

  it('sends the prompt untouched under the threshold', async () => {
    const context = setup();
    await runConversation(context, { turns: 2 });
    const calls = context.agentCalls();
    calls.forEach((call, index) => {
      expect(call.prompt).toBe(context.inputs[index]);
    });
    expect(context.compactions()).toEqual([]);
  });

  it('lets the wrapped model write the summaries when no summarizer model is given', async () => {
    const context = setup({ separateSummarizer: false });
    await runConversation(context, { turns: 20 });
    expectEveryPromptValid(context);
    expect(context.agent.summaryCalls).toBeGreaterThanOrEqual(1);
    const summaryCalls = context.model.doGenerateCalls.filter((call) =>
      isSummaryPrompt(call.prompt),
    );
    expect(summaryCalls.length).toBe(context.agent.summaryCalls);
    for (const call of summaryCalls) {
      expect(call.tools).toBeUndefined();
      expect(call.providerOptions).toBeUndefined();
    }
    expect(context.summarizerCalls).toBe(0);
  });

  it('falls back to the extractive summary when the summarizer model fails', async () => {
    const failing = new MockLanguageModelV4({
      modelId: 'gpt-4o-mini',
      doGenerate: async () => {
        throw new Error('provider down');
      },
    });
    const context = setup({ summarizerModel: failing });
    await runConversation(context, { turns: 20 });
    expectEveryPromptValid(context);
    expect(context.events.some(({ event }) => event.type === 'summarizer-fallback')).toBe(true);
    const last = context.agentCalls().at(-1)!.prompt;
    expect(
      last.some(
        (message) => message.role === 'system' && message.content.startsWith(SUMMARY_HEADING),
      ),
    ).toBe(true);
  });

  it('resolves the context window from a known model id', async () => {
    const model = new MockLanguageModelV4({
      modelId: 'gpt-4o',
      doGenerate: textResult('hi') as never,
    });
    const middleware = contextMemoryMiddleware();
    await generateText({ model: wrapLanguageModel({ model, middleware }), prompt: 'Hello' });
    expect(middleware.manager('gpt-4o')?.budget.contextWindow).toBe(128_000);
  });

  it('rejects an unknown model without a context window, and bad per-call options', async () => {
    const model = new MockLanguageModelV4({
      modelId: 'my-private-model',
      doGenerate: textResult('hi') as never,
    });
    const wrapped = wrapLanguageModel({ model, middleware: contextMemoryMiddleware() });
    await expect(generateText({ model: wrapped, prompt: 'Hello' })).rejects.toSatisfy(
      InvalidArgumentError.isInstance,
    );
    const sized = wrapLanguageModel({
      model,
      middleware: contextMemoryMiddleware({ contextWindow: 8_000 }),
    });
    await expect(
      generateText({
        model: sized,
        prompt: 'Hello',
        providerOptions: { ctxmem: { session_id: 'x' } },
      }),
    ).rejects.toSatisfy(InvalidArgumentError.isInstance);
    expect(() => contextMemoryMiddleware({ summarizerModel: {} as never })).toThrow(
      /summarizerModel/,
    );
  });

  it('removes providerOptions.ctxmem and keeps every other providerOption', async () => {
    const context = setup();
    await generateText({
      model: context.wrapped,
      instructions: INSTRUCTIONS,
      messages: [
        {
          role: 'user',
          content: [
            {
              type: 'text',
              text: 'Look at this.',
              providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
            },
          ],
          providerOptions: { openai: { user: 'u-1' } },
        },
      ],
      providerOptions: { openai: { store: false }, ctxmem: { userId: 'u-1', sessionId: 's-9' } },
    });
    const [call] = context.agentCalls();
    expect(call!.providerOptions).toEqual({ openai: { store: false } });
    expect(call!.prompt[1]).toMatchObject({
      role: 'user',
      content: [
        {
          type: 'text',
          text: 'Look at this.',
          providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
        },
      ],
      providerOptions: { openai: { user: 'u-1' } },
    });
  });

  it('keeps providerOptions, files and reasoning of the messages it keeps through a compaction', async () => {
    const context = setup();
    const messages = await runConversation(context, { turns: 8 });
    const image = new Uint8Array([137, 80, 78, 71]);
    messages.push({
      role: 'user',
      content: [
        {
          type: 'text',
          text: 'What is in this picture?',
          providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
        },
        { type: 'file', data: image, mediaType: 'image/png' },
      ],
      providerOptions: { openai: { user: 'u-1' } },
    });
    await generateText({
      model: context.wrapped,
      instructions: {
        role: 'system',
        content: INSTRUCTIONS,
        providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
      },
      messages,
      tools: { lookup: lookupTool() },
      stopWhen: stepCountIs(4),
      providerOptions: { ctxmem: { sessionId: 'session-1' } },
    });
    expectEveryPromptValid(context);
    const last = context.agentCalls().at(-1)!.prompt;
    expect(last[0]).toEqual({
      role: 'system',
      content: INSTRUCTIONS,
      providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
    });
    const question = last.find(
      (message) =>
        message.role === 'user' &&
        JSON.stringify(message.content).includes('What is in this picture?'),
    );
    expect(question).toMatchObject({
      providerOptions: { openai: { user: 'u-1' } },
      content: [
        { type: 'text', providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } } },
        { type: 'file', data: { type: 'data', data: image }, mediaType: 'image/png' },
      ],
    });
  });

  it('injects relevant memories right before the newest user message, per user', async () => {
    const store = createInMemoryMemoryStore();
    await store.add({ userId: 'u1' }, [
      { content: 'The user is allergic to peanuts.', type: 'fact' },
    ]);
    const context = setup({ memory: { store } });
    const ask = (userId: string) =>
      generateText({
        model: context.wrapped,
        instructions: INSTRUCTIONS,
        messages: [
          { role: 'user', content: 'Hello there.' },
          { role: 'assistant', content: 'Hi! How can I help?' },
          {
            role: 'user',
            content: 'Is a snack with peanuts safe for someone allergic to peanuts?',
          },
        ],
        providerOptions: { ctxmem: { userId, sessionId: `chat-${userId}` } },
      });
    await ask('u1');
    await ask('u2');
    const [first, second] = context.agentCalls();
    const texts = (prompt: V4Prompt) =>
      prompt.map((message) =>
        typeof message.content === 'string'
          ? message.content
          : message.content.map((part) => ('text' in part ? part.text : '')).join(''),
      );
    const firstTexts = texts(first!.prompt);
    expect(firstTexts.at(-1)).toBe('Is a snack with peanuts safe for someone allergic to peanuts?');
    expect(firstTexts.at(-2)).toContain('## Relevant Memories');
    expect(firstTexts.at(-2)).toContain('allergic to peanuts');
    // The memory belongs to u1 (whatever the session), never to u2.
    expect(texts(second!.prompt).join('\n')).not.toContain('## Relevant Memories');
    expect(context.events.filter(({ event }) => event.type === 'memory-injection')).toMatchObject([
      { event: { scope: { userId: 'u1', sessionId: 'chat-u1' }, cards: 1 } },
    ]);
    expect(context.middleware.stores.search).toBeDefined();
  });

  it('runs the silent memory flush on the summarizer model and keeps its notes for the user', async () => {
    const store = createInMemoryMemoryStore();
    const flushPrompts: string[] = [];
    const summarizerModel = new MockLanguageModelV4({
      modelId: 'gpt-4o-mini',
      doGenerate: async ({ prompt }) => {
        const system = prompt[0]?.role === 'system' ? prompt[0].content : '';
        if (!system.startsWith(FLUSH_SYSTEM_PROMPT))
          return textResult(summaryAnswer('flush')) as never;
        flushPrompts.push(system);
        return textResult(
          JSON.stringify({
            long_term: [{ content: 'The user wants short answers.', type: 'preference' }],
            daily: [],
          }),
        ) as never;
      },
    });
    const context = setup({ summarizerModel, flush: true, memory: { store, inject: false } });
    await runConversation(context, {
      turns: 12,
      providerOptions: { ctxmem: { userId: 'u7', sessionId: 'first-chat' } },
    });
    await context.middleware.idle();
    expectEveryPromptValid(context);
    expect(flushPrompts.length).toBeGreaterThanOrEqual(1);
    const flushes = context.events.filter(({ event }) => event.type === 'memory-flush');
    expect(flushes.some(({ event }) => event.type === 'memory-flush' && event.stored >= 1)).toBe(
      true,
    );
    // Stored for the user, not for the one chat: the next chat finds it.
    const cards = await store.list({ userId: 'u7' });
    expect(cards.map((card) => card.content)).toContain('The user wants short answers.');
  });

  it('resolves the scope from the call with the scope option, under providerOptions.ctxmem', async () => {
    const historyStore = createInMemoryHistoryStore();
    const context = setup({
      historyStore,
      scope: (params) => ({
        userId: 'from-header',
        sessionId: params.headers?.['x-session'] ?? 'none',
      }),
    });
    const ask = (headers: Record<string, string>, providerOptions = {}) =>
      generateText({ model: context.wrapped, prompt: 'Hello', headers, providerOptions });
    await ask({ 'x-session': 'chat-9' });
    await ask({ 'x-session': 'chat-9' }, { ctxmem: { sessionId: 'override' } });
    // The history of each call was recorded under the scope it resolved to.
    expect(await historyStore.count({ userId: 'from-header', sessionId: 'chat-9' })).toBe(1);
    expect(await historyStore.count({ userId: 'from-header', sessionId: 'override' })).toBe(1);
    await context.middleware.clear({ userId: 'from-header', sessionId: 'chat-9' });
    expect(await historyStore.count({ userId: 'from-header', sessionId: 'chat-9' })).toBe(0);
    const bad = setup({ scope: () => ({ userId: 42 }) as never });
    await expect(generateText({ model: bad.wrapped, prompt: 'Hello' })).rejects.toSatisfy(
      InvalidArgumentError.isInstance,
    );
    expect(() => contextMemoryMiddleware({ scope: { sessionId: '' } })).toThrow(
      InvalidArgumentError,
    );
  });

  it('keeps the conversations of different sessions apart', async () => {
    const context = setup({
      summarizer: createExtractiveSummarizer({ counter: createTokenCounter() }),
    });
    const conversation = (session: string, marker: string) =>
      runConversation(context, {
        turns: 10,
        providerOptions: { ctxmem: { sessionId: session } },
        tools: { lookup: lookupTool(`${marker} `) },
      });
    await Promise.all([conversation('a', 'ALPHAMARK'), conversation('b', 'BRAVOMARK')]);
    expectEveryPromptValid(context);
    const calls = context.agentCalls();
    let compactedWithSummary = 0;
    for (const call of calls) {
      const text = JSON.stringify(call.prompt);
      expect(text.includes('ALPHAMARK') && text.includes('BRAVOMARK')).toBe(false);
      if (text.includes(SUMMARY_HEADING)) compactedWithSummary++;
    }
    expect(compactedWithSummary).toBeGreaterThan(0);
  });

  it('summarizes in the background, so that no turn waits for the summarizer', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let summaries = 0;
    const slowSummarizer = new MockLanguageModelV4({
      modelId: 'gpt-4o-mini',
      doGenerate: async () => {
        await gate;
        return textResult(summaryAnswer(String(++summaries))) as never;
      },
    });
    const context = setup({
      summarizerModel: slowSummarizer,
      backgroundCompaction: true,
      toolStepsPerTurn: 1,
    });
    const messages: ModelMessage[] = [];
    const manager = () => context.middleware.manager()!;
    let turn = 0;
    // Grow the conversation until it passes the soft threshold: the summarizer is now blocked.
    for (; turn < 40; turn++) {
      messages.push({ role: 'user', content: `Question ${turn}: ${words(turn, 25)}?` });
      const result = await generateText({
        model: context.wrapped,
        messages,
        tools: { lookup: lookupTool('', 250) },
        stopWhen: stepCountIs(3),
      });
      messages.push(...result.responseMessages);
      const tokens = manager().counter.countMessages(
        fromV4Prompt(context.agentCalls().at(-1)!.prompt),
      );
      if (tokens >= manager().budget.triggerTokens - 0.1 * manager().budget.contextWindow) break;
    }
    expect(turn).toBeLessThan(40);
    expect(slowSummarizer.doGenerateCalls.length).toBe(1);
    // The next turn completes while the summary is still being written.
    messages.push({ role: 'user', content: 'One more question?' });
    const next = await generateText({ model: context.wrapped, messages });
    messages.push(...next.responseMessages);
    expect(summaries).toBe(0);
    release();
    await context.middleware.idle();
    expect(summaries).toBe(1);
    // The finished summary is kept ready and adopted when the threshold is reached, without
    // another summarizer call and without the turn waiting.
    for (let more = 0; more < 40; more++) {
      messages.push({ role: 'user', content: `Follow-up ${more}: ${words(more, 25)}?` });
      const result = await generateText({
        model: context.wrapped,
        messages,
        tools: { lookup: lookupTool('', 250) },
        stopWhen: stepCountIs(3),
      });
      messages.push(...result.responseMessages);
      if (JSON.stringify(context.agentCalls().at(-1)!.prompt).includes(SUMMARY_HEADING)) break;
    }
    expect(JSON.stringify(context.agentCalls().at(-1)!.prompt)).toContain(SUMMARY_HEADING);
    expect(summaries).toBeGreaterThanOrEqual(1);
    expectEveryPromptValid(context);
  });

  it('works with an AI SDK 6 (V3) model wrapped by AI SDK 7', async () => {
    const agent = createScriptedAgent();
    const model = new MockLanguageModelV3({
      modelId: 'mock-v3',
      doGenerate: async ({ prompt }) => agent.respond(prompt) as never,
    });
    const middleware = contextMemoryMiddleware({
      contextWindow: 8_000,
      backgroundCompaction: false,
    });
    const wrapped = wrapLanguageModel({ model, middleware });
    const messages: ModelMessage[] = [];
    for (let turn = 1; turn <= 15; turn++) {
      messages.push({ role: 'user', content: `Question ${turn}: ${words(turn, 25)}?` });
      const result = await generateText({
        model: wrapped,
        messages,
        tools: { lookup: lookupTool() },
        stopWhen: stepCountIs(4),
      });
      messages.push(...result.responseMessages);
    }
    const manager = middleware.manager('mock-v3')!;
    const prompts = model.doGenerateCalls.filter((call) => !isSummaryPrompt(call.prompt));
    expect(JSON.stringify(prompts.at(-1)!.prompt)).toContain(SUMMARY_HEADING);
    for (const call of prompts) {
      expect(manager.counter.countMessages(call.prompt as never)).toBeLessThanOrEqual(
        manager.budget.budgetTokens,
      );
    }
  });
});

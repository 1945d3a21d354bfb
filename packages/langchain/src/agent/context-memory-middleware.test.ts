import {
  type CtxmemEvent,
  checkToolPairing,
  countToolDefinitions,
  createInMemoryHistoryStore,
  createInMemoryMemoryStore,
  createTokenCounter,
  InvalidArgumentError,
  InvalidMessageError,
} from '@ctxmem/core';
import { MEMORY_INJECTION_HEADING, SUMMARY_HEADING } from '@ctxmem/core/adapter-kit';
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';
import { type AgentMiddleware, createAgent, createMiddleware } from 'langchain';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { fromLangChainMessages } from '../convert/index.js';
import {
  brokenLangChainHistories,
  createScriptedAgent,
  isSummaryRequest,
  ScriptedChatModel,
  textOf,
  words,
} from '../langchain.test-support.js';
import { memoryTools } from '../tools/index.js';
import { contextMemoryMiddleware } from './index.js';

const counter = createTokenCounter();
const WINDOW = 4_000;
// reserve = min(max(400, 2000), 1000) = 1000 → budget 3000.
const BUDGET = 3_000;
const SYSTEM_PROMPT = 'You are a research agent. Use the lookup tool, then answer.';

const lookup = tool(
  async ({ query }: { query: string }) => `Result for ${query}: ${words(query.length * 7, 250)}`,
  {
    name: 'lookup',
    description: 'Looks a query up.',
    schema: z.object({ query: z.string(), page: z.number().optional() }),
  },
);

/** Problems a provider would reject in a prompt: broken tool pairing or misplaced system messages. */
function promptProblems(messages: readonly BaseMessage[]): string[] {
  const problems = checkToolPairing(fromLangChainMessages(messages)).map(
    (problem) => `${problem.kind} ${problem.toolCallId}`,
  );
  messages.forEach((message, index) => {
    if (message.type === 'system' && index > 0) problems.push(`system message at ${index}`);
  });
  return problems;
}

function tokensOf(messages: readonly BaseMessage[]): number {
  return counter.countMessages(fromLangChainMessages(messages));
}

/** What the bound `lookup` tool's definition takes of the window. */
const TOOL_TOKENS = countToolDefinitions([convertToOpenAITool(lookup)], counter);

async function runTurns(
  agent: {
    invoke(
      input: { messages: BaseMessage[] },
      config?: object,
    ): Promise<{ messages: BaseMessage[] }>;
  },
  turns: number,
  config: object = {},
  start: BaseMessage[] = [],
): Promise<BaseMessage[]> {
  let messages = start;
  for (let turn = 0; turn < turns; turn++) {
    const state = await agent.invoke(
      { messages: [...messages, new HumanMessage(`Task ${turn}: research ${words(turn, 20)}`)] },
      config,
    );
    messages = state.messages;
  }
  return messages;
}

/**
 * A scripted tool-using agent (two lookups per turn) with the middleware in a `WINDOW` window, the
 * agent's model also writing the summaries; `before` are middlewares placed in front of ctxmem's.
 */
function scriptedAgent({
  failSummaries = false,
  maxTokens,
  before = [],
}: {
  failSummaries?: boolean;
  maxTokens?: number;
  before?: AgentMiddleware[];
} = {}) {
  const { model, state } = createScriptedAgent({
    toolSteps: 2,
    failSummaries,
    ...(maxTokens === undefined ? {} : { maxTokens }),
  });
  const events: CtxmemEvent[] = [];
  const historyStore = createInMemoryHistoryStore();
  const memory = contextMemoryMiddleware({
    contextWindow: WINDOW,
    summarizerModel: model,
    historyStore,
    onEvent: (event) => events.push(event),
  });
  const agent = createAgent({
    model,
    tools: [lookup],
    systemPrompt: SYSTEM_PROMPT,
    // One element type: createAgent's overloads do not take a union of middleware types.
    middleware: [...before, memory] as AgentMiddleware[],
  });
  /** The agent's model calls (the summary requests left out). */
  const prompts = () => model.calls.filter((messages) => !isSummaryRequest(messages));
  return { model, state, events, historyStore, memory, agent, prompts };
}

/** Every prompt fits `budget` with the tool definitions and is valid for a provider. */
function expectPromptsFit(prompts: readonly BaseMessage[][], budget: number): void {
  for (const prompt of prompts) {
    expect(tokensOf(prompt) + TOOL_TOKENS).toBeLessThanOrEqual(budget);
    expect(promptProblems(prompt)).toEqual([]);
  }
}

describe('contextMemoryMiddleware on messages that cannot be sent', () => {
  // Protection: the converter's checks of the fields it carries (and of holes), before the
  // context manager, the history store or the model sees them.
  it.each(brokenLangChainHistories().map((broken) => [broken.name, broken] as const))(
    'rejects %s in a model call with InvalidMessageError naming the path',
    async (_name, broken) => {
      const middleware = contextMemoryMiddleware({ contextWindow: WINDOW, counter });
      const wrap = middleware.wrapModelCall as unknown as (
        request: object,
        handler: (request: object) => unknown,
      ) => Promise<unknown>;
      const handler = vi.fn();
      const error = await wrap(
        {
          messages: broken.messages,
          systemMessage: new SystemMessage(SYSTEM_PROMPT),
          tools: [],
          model: {},
          runtime: {},
          state: {},
        },
        handler,
      ).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(InvalidMessageError.isInstance(error)).toBe(true);
      expect((error as InvalidMessageError).path).toBe(broken.path);
      expect((error as InvalidMessageError).message).toContain(broken.problem);
      expect(handler).not.toHaveBeenCalled();
    },
  );
});

describe('contextMemoryMiddleware in createAgent', () => {
  it('keeps every model call of a long tool-using agent within budget, tools counted, state untouched', async () => {
    const { state, events, historyStore, agent, prompts: agentPrompts } = scriptedAgent();
    const config = { configurable: { thread_id: 'thread-1' } };
    const final = await runTurns(agent, 12, config);

    const prompts = agentPrompts();
    expect(prompts.length).toBe(12 * 3);
    expectPromptsFit(prompts, BUDGET);
    for (const prompt of prompts) {
      // One system message: the agent's prompt, with the summary folded in once there is one.
      expect(prompt[0]).toBeInstanceOf(SystemMessage);
      expect(textOf(prompt[0]!).startsWith(SYSTEM_PROMPT)).toBe(true);
    }
    expect(textOf(prompts.at(-1)![0]!)).toContain(SUMMARY_HEADING);

    // The agent state is the conversation as it happened: nothing of ctxmem's shows in it (or in
    // a stream of it), and the compaction lives in the context manager.
    expect(final).toHaveLength(12 * 6);
    expect(final.some((message) => message.additional_kwargs.ctxmem !== undefined)).toBe(false);
    expect(final.some((message) => message.type === 'remove')).toBe(false);
    expect(tokensOf(final)).toBeGreaterThan(BUDGET);
    expect(textOf(final.at(-1)!)).toMatch(/^Done:/);

    // The summarizer ran once per threshold crossing, not on every step.
    const compactions = events.filter((event) => event.type === 'compaction').length;
    expect(compactions).toBeGreaterThan(0);
    expect(state.summaryCalls).toBeLessThanOrEqual(compactions);
    expect(compactions).toBeLessThan(prompts.length / 3);

    // Every original message was recorded once, before it was compacted away.
    const stored = await historyStore.read({ sessionId: 'thread-1' });
    expect(stored).toHaveLength(12 * 6);
    expect(stored.filter((entry) => entry.message.role === 'user')).toHaveLength(12);
  });

  it('fails closed: a failing summarizer model never becomes the summary, and history is kept', async () => {
    const { state, events, historyStore, agent, prompts } = scriptedAgent({ failSummaries: true });
    const final = await runTurns(agent, 10, { configurable: { thread_id: 't-fail' } });
    expect(state.summaryCalls).toBeGreaterThan(0);
    expect(events.some((event) => event.type === 'summarizer-fallback')).toBe(true);
    const summary = textOf(prompts().at(-1)![0]!);
    expect(final).toHaveLength(10 * 6);
    expect(summary).toContain(SUMMARY_HEADING);
    expect(summary).not.toMatch(/error|down/i);
    expect(summary).toMatch(/Task \d+/);
    expectPromptsFit(prompts(), BUDGET);
    expect(await historyStore.count({ sessionId: 't-fail' })).toBe(10 * 6);
  });

  it("reserves the output the model asks for: its maxTokens, or max_tokens in the call's modelSettings", async () => {
    // Without the reserve, prompts would grow to the default trigger (80 % of what the tools
    // leave), well past what the window minus the model's output allows.
    const limited = scriptedAgent({ maxTokens: 1_500 });
    await runTurns(limited.agent, 8);
    expect(limited.events.some((event) => event.type === 'compaction')).toBe(true);
    expectPromptsFit(limited.prompts(), WINDOW - 1_500);

    const settings = createMiddleware({
      name: 'OutputSettings',
      wrapModelCall: (request, handler) =>
        handler({ ...request, modelSettings: { ...request.modelSettings, max_tokens: 2_000 } }),
    });
    const configured = scriptedAgent({ before: [settings] });
    await runTurns(configured.agent, 8);
    expect(configured.events.some((event) => event.type === 'compaction')).toBe(true);
    expectPromptsFit(configured.prompts(), WINDOW - 2_000);
  });

  it('streams only the conversation: no summary, RemoveMessage or record reaches the stream', async () => {
    const { model, agent } = scriptedAgent();
    const config = { configurable: { thread_id: 'stream-1' } };
    let messages: BaseMessage[] = [];
    const streamed: BaseMessage[] = [];
    for (let turn = 0; turn < 8; turn++) {
      const stream = await agent.stream(
        { messages: [...messages, new HumanMessage(`Task ${turn}: ${words(turn, 20)}`)] },
        { ...config, streamMode: 'values' },
      );
      for await (const chunk of stream) {
        messages = (chunk as { messages: BaseMessage[] }).messages;
        streamed.push(...messages);
      }
    }
    expect(model.calls.some((call) => isSummaryRequest(call))).toBe(true);
    expect(streamed.some((message) => message.type === 'remove')).toBe(false);
    expect(streamed.some((message) => message.type === 'system')).toBe(false);
    expect(streamed.some((message) => message.additional_kwargs.ctxmem !== undefined)).toBe(false);
  });

  it('injects relevant memories into the model call only, right before the newest user message', async () => {
    const store = createInMemoryMemoryStore();
    await store.add({ userId: 'u1' }, [
      { content: 'The user is allergic to peanuts.', type: 'fact' },
    ]);
    const model = new ScriptedChatModel(() => 'Noted.');
    const memory = contextMemoryMiddleware({
      contextWindow: WINDOW,
      memory: { store },
      scope: ({ configurable }) => ({ userId: 'u1', sessionId: String(configurable?.thread_id) }),
    });
    const agent = createAgent({
      model,
      tools: [],
      systemPrompt: SYSTEM_PROMPT,
      middleware: [memory],
    });
    const result = await agent.invoke(
      { messages: [new HumanMessage('Is peanut butter safe for me?')] },
      { configurable: { thread_id: 's1' } },
    );
    const prompt = model.calls[0]!;
    expect(prompt.map((message) => message.type)).toEqual(['system', 'human', 'human']);
    expect(textOf(prompt[1]!)).toContain(MEMORY_INJECTION_HEADING);
    expect(textOf(prompt[1]!)).toContain('allergic to peanuts');
    expect(textOf(prompt[2]!)).toBe('Is peanut butter safe for me?');
    // Nothing of the injection is persisted.
    expect(result.messages.map((message) => message.type)).toEqual(['human', 'ai']);
    // An unrelated question gets no memories.
    await agent.invoke(
      { messages: [new HumanMessage('What is 2 + 2?')] },
      { configurable: { thread_id: 's2' } },
    );
    expect(model.calls[1]!.map((message) => message.type)).toEqual(['system', 'human']);
  });

  it('gives the agent the memory tools over its own stores and scope', async () => {
    const store = createInMemoryMemoryStore();
    // An anonymous session keeps its memories to itself: another thread's card is never found.
    await store.add({ sessionId: 'tools-1' }, [
      { content: 'The release is planned for March.', type: 'decision' },
    ]);
    await store.add({ sessionId: 'other-thread' }, [
      { content: 'The release planned secretly moved to June.', type: 'decision' },
    ]);
    const historyStore = createInMemoryHistoryStore();
    const results: string[] = [];
    const model = new ScriptedChatModel((messages) => {
      const last = messages.at(-1)!;
      if (last.type === 'tool') results.push(textOf(last));
      const step = results.length;
      const calls = [
        { name: 'search_memory', args: { query: 'release planned' } },
        { name: 'recall_conversation', args: { turn_numbers: [1] } },
        { name: 'reload_context', args: { id: 'missing-id' } },
        { name: 'search_memory', args: { query: '' } },
      ];
      const call = calls[step];
      if (!call) return 'All done.';
      return new AIMessage({
        content: '',
        tool_calls: [{ id: `m${step}`, ...call, type: 'tool_call' }],
      });
    });
    const memory = contextMemoryMiddleware({
      contextWindow: WINDOW,
      memory: { store },
      historyStore,
      injectMemories: false,
    });
    const tools = memoryTools(memory);
    expect(tools.map((item) => item.name).sort()).toEqual([
      'recall_conversation',
      'reload_context',
      'search_memory',
    ]);
    const agent = createAgent({ model, tools, middleware: [memory] });
    await agent.invoke(
      { messages: [new HumanMessage('When is the release?')] },
      { configurable: { thread_id: 'tools-1' } },
    );
    expect(results).toHaveLength(4);
    const found = JSON.parse(results[0]!).results as Array<{ content: string }>;
    expect(found.map((hit) => hit.content)).toEqual(['The release is planned for March.']);
    expect(JSON.parse(results[1]!).turns[0].messages[0].text).toBe('When is the release?');
    // Bad ids and bad input come back as tool errors the model can correct.
    expect(results[2]).toMatch(/not found|missing-id/i);
    expect(results[3]).toMatch(/query/i);
  });

  it('prepares each model call once: the model call reuses what beforeModel prepared', async () => {
    const { events, memory, agent, prompts } = scriptedAgent();
    const prepared = vi.spyOn(memory.manager, 'callModel');
    await runTurns(agent, 10);
    const compactions = events.filter((event) => event.type === 'compaction').length;
    const calls = prompts().length;
    expect(calls).toBe(30);
    // One preparation per model call (no rejection, so no retry); the manager reuses its
    // compaction of the prefix in between.
    expect(prepared.mock.calls.length).toBe(calls);
    expect(compactions).toBeGreaterThan(0);
    expect(compactions).toBeLessThan(calls / 3);
  });

  it('keeps the summary calls out of the messages stream', async () => {
    const { state, agent } = scriptedAgent();
    let messages: BaseMessage[] = [];
    const streamed: string[] = [];
    for (let turn = 0; turn < 8; turn++) {
      const stream = await agent.stream(
        { messages: [...messages, new HumanMessage(`Task ${turn}: research ${words(turn, 20)}`)] },
        { streamMode: ['messages', 'values'] },
      );
      for await (const [mode, chunk] of stream) {
        if (mode === 'messages') streamed.push(textOf((chunk as [BaseMessage, unknown])[0]));
        else messages = (chunk as { messages: BaseMessage[] }).messages;
      }
    }
    expect(state.summaryCalls).toBeGreaterThan(0);
    expect(streamed.some((text) => text.startsWith('Done:'))).toBe(true);
    expect(streamed.some((text) => text.includes('"summary"'))).toBe(false);
    expect(messages.some((message) => message.additional_kwargs.ctxmem !== undefined)).toBe(false);
  });

  it('rejects a bad scope with a typed error', () => {
    expect(() => contextMemoryMiddleware({ contextWindow: WINDOW, scope: { userId: '' } })).toThrow(
      InvalidArgumentError,
    );
    expect(() => contextMemoryMiddleware({})).toThrow(/contextWindow/);
  });
});

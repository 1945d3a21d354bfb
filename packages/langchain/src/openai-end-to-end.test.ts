import {
  createInMemoryHistoryStore,
  createInMemoryMemoryStore,
  createMemorySearch,
  fromOpenAIChat,
  type Message,
  type OpenAIChatMessage,
  SUMMARY_HEADING,
  SUMMARY_SYSTEM_PROMPT,
} from '@ctxmem/core';
import {
  type OpenAICompatibleServer,
  type OpenAIServerReply,
  type OpenAIServerRequest,
  startOpenAICompatibleServer,
} from '@ctxmem/core/test';
import { type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { ChatOpenAI, OpenAIEmbeddings } from '@langchain/openai';
import { createAgent } from 'langchain';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { contextMemoryMiddleware } from './agent/index.js';
import { summaryAnswer, words } from './langchain.test-support.js';
import { langChainEmbedder, MemoryRetriever } from './retrieval/index.js';
import { memoryTools } from './tools/index.js';

type Item = Record<string, unknown>;
const SUMMARY_MARKER = SUMMARY_SYSTEM_PROMPT.slice(0, 60);
const TOOL_STEPS = 2;

/** Answers like an agent: two lookups per user turn, then text; summary requests get a summary. */
function agentHandler(request: OpenAIServerRequest): OpenAIServerReply {
  const text = JSON.stringify(request.body);
  if (text.includes(SUMMARY_MARKER)) return { text: summaryAnswer(String(request.index)) };
  const items = (
    request.endpoint === 'responses' ? request.body.input : request.body.messages
  ) as Item[];
  let lastUser = items.length - 1;
  while (lastUser >= 0 && items[lastUser]!.role !== 'user') lastUser--;
  const results = items
    .slice(lastUser + 1)
    .filter((item) => item.role === 'tool' || item.type === 'function_call_output').length;
  if (results < TOOL_STEPS) {
    return { toolCalls: [{ name: 'lookup', arguments: { query: `q${request.index}` } }] };
  }
  return { text: `Answer ${request.index}: ${words(request.index, 10)}` };
}

/** What OpenAI would reject in a Chat Completions request. */
function chatProblems(messages: readonly Item[]): string[] {
  const problems: string[] = [];
  messages.forEach((message, index) => {
    if ((message.role === 'system' || message.role === 'developer') && index > 0) {
      problems.push(`system message at ${index}`);
    }
    if (message.role === 'tool') {
      let caller = index - 1;
      while (caller >= 0 && messages[caller]!.role === 'tool') caller--;
      const calls = (messages[caller]?.tool_calls as Array<{ id: string }> | undefined) ?? [];
      if (!calls.some((call) => call.id === message.tool_call_id)) {
        problems.push(`tool message ${index} does not follow its call`);
      }
    }
    for (const call of (message.tool_calls as Array<{ id: string }> | undefined) ?? []) {
      let answered = false;
      for (
        let next = index + 1;
        next < messages.length && messages[next]!.role === 'tool';
        next++
      ) {
        if (messages[next]!.tool_call_id === call.id) answered = true;
      }
      if (!answered) problems.push(`tool call ${call.id} is not answered right after it`);
    }
  });
  return problems;
}

/** What OpenAI would reject in a Responses request: every function call answered once, after it. */
function responsesProblems(input: readonly Item[]): string[] {
  const problems: string[] = [];
  const open = new Set<string>();
  input.forEach((item, index) => {
    if ((item.role === 'system' || item.role === 'developer') && index > 0) {
      problems.push(`system item at ${index}`);
    }
    if (item.type === 'function_call') open.add(item.call_id as string);
    else if (item.type === 'function_call_output' && !open.delete(item.call_id as string)) {
      problems.push(`output ${String(item.call_id)} has no call before it`);
    }
  });
  for (const id of open) problems.push(`call ${id} has no output`);
  return problems;
}

function itemText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (part as { text?: string }).text ?? '').join('');
}

/** The Responses input as core messages, to count it with the core counter. */
function responsesAsMessages(input: readonly Item[]): Message[] {
  return input.map((item): Message => {
    if (item.type === 'function_call') {
      return {
        role: 'assistant',
        content: [
          {
            type: 'tool-call',
            toolCallId: item.call_id as string,
            toolName: item.name as string,
            input: JSON.parse(item.arguments as string),
          },
        ],
      };
    }
    if (item.type === 'function_call_output') {
      return {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: item.call_id as string,
            toolName: 'lookup',
            output: { type: 'text', value: String(item.output) },
          },
        ],
      };
    }
    if (item.type !== undefined && item.type !== 'message') {
      throw new Error(`unexpected input item ${JSON.stringify(item)}`);
    }
    const role =
      item.role === 'developer' ? 'system' : (item.role as 'system' | 'user' | 'assistant');
    return { role, content: itemText(item.content) } as Message;
  });
}

let server: OpenAICompatibleServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('end to end through @langchain/openai and a local OpenAI-compatible server', () => {
  for (const api of ['chat', 'responses'] as const) {
    it(`sends valid ${api === 'chat' ? 'Chat Completions' : 'Responses'} requests within budget from a long tool-using agent`, async () => {
      server = await startOpenAICompatibleServer({ handler: agentHandler });
      const model = new ChatOpenAI({
        model: 'gpt-4o-mini',
        apiKey: 'test',
        maxRetries: 0,
        configuration: { baseURL: server.url },
        ...(api === 'responses' ? { useResponsesApi: true, zdrEnabled: true } : {}),
      });
      const historyStore = createInMemoryHistoryStore();
      const memory = contextMemoryMiddleware({ model, contextWindow: 6_000, historyStore });
      const lookup = tool(
        async ({ query }: { query: string }) => words(query.length * 104_729, 350),
        {
          name: 'lookup',
          description: 'Looks something up.',
          schema: z.object({ query: z.string() }),
        },
      );
      const agent = createAgent({
        model,
        tools: [lookup, ...memoryTools(memory)],
        systemPrompt: 'You are a research agent.',
        middleware: [memory],
      });
      const config = { configurable: { thread_id: 'e2e-thread' } };
      let messages: BaseMessage[] = [];
      for (let turn = 1; turn <= 12; turn++) {
        const state = await agent.invoke(
          { messages: [...messages, new HumanMessage(`Question ${turn}: ${words(turn, 25)}?`)] },
          config,
        );
        messages = state.messages;
      }

      const agentRequests = server.requests.filter(
        (request) => !JSON.stringify(request.body).includes(SUMMARY_MARKER),
      );
      const summaryRequests = server.requests.length - agentRequests.length;
      expect(agentRequests).toHaveLength(12 * (TOOL_STEPS + 1));
      let summarized = 0;
      for (const request of agentRequests) {
        expect(request.endpoint).toBe(api === 'chat' ? 'chat.completions' : 'responses');
        if (api === 'chat') {
          const wire = request.body.messages as OpenAIChatMessage[];
          expect(chatProblems(wire as unknown as Item[]), `request ${request.index}`).toEqual([]);
          expect(memory.manager.counter.countMessages(fromOpenAIChat(wire))).toBeLessThanOrEqual(
            memory.manager.budget.budgetTokens,
          );
        } else {
          const input = request.body.input as Item[];
          expect(responsesProblems(input), `request ${request.index}`).toEqual([]);
          expect(
            memory.manager.counter.countMessages(responsesAsMessages(input)),
          ).toBeLessThanOrEqual(memory.manager.budget.budgetTokens);
        }
        // ctxmem's markers stay on the LangChain side.
        expect(JSON.stringify(request.body)).not.toContain('"ctxmem"');
        expect((request.body.tools as unknown[]).length).toBe(3);
        if (JSON.stringify(request.body).includes(SUMMARY_HEADING)) summarized++;
      }
      expect(summaryRequests).toBeGreaterThanOrEqual(1);
      expect(summaryRequests).toBeLessThan(agentRequests.length / 3);
      expect(summarized).toBeGreaterThan(0);
      expect(messages[0]!.additional_kwargs.ctxmem).toEqual({ kind: 'summary' });
      expect(await historyStore.count({ sessionId: 'e2e-thread' })).toBe(12 * (2 * TOOL_STEPS + 2));
    });
  }

  it('embeds memories with OpenAIEmbeddings for the retriever', async () => {
    server = await startOpenAICompatibleServer({ embeddingDimensions: 16 });
    const embeddings = new OpenAIEmbeddings({
      model: 'text-embedding-3-small',
      apiKey: 'test',
      maxRetries: 0,
      configuration: { baseURL: server.url },
    });
    const store = createInMemoryMemoryStore();
    await store.add({ userId: 'u1' }, [
      { content: 'The user prefers green tea.', type: 'preference' },
      { content: 'The user rides a bicycle to work.', type: 'fact' },
    ]);
    const embedder = langChainEmbedder(embeddings, { dimensions: 16 });
    const search = createMemorySearch({ store, embedder, mode: 'vector' });
    const retriever = new MemoryRetriever({ store, search, scope: { userId: 'u1' }, k: 1 });
    const [document] = await retriever.invoke('The user prefers green tea.');
    expect(document!.pageContent).toBe('The user prefers green tea.');
    expect(server.requests.some((request) => request.endpoint === 'embeddings')).toBe(true);
  });
});

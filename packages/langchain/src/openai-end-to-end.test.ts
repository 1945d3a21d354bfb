import {
  countToolDefinitions,
  createInMemoryHistoryStore,
  createInMemoryMemoryStore,
  createMemorySearch,
} from '@ctxmem/core';
import { SUMMARY_HEADING } from '@ctxmem/core/adapter-kit';
import {
  agentReply,
  isSummaryRequest,
  type OpenAICompatibleServer,
  type OpenAIServerReply,
  type OpenAIServerRequest,
  startOpenAICompatibleServer,
  wireMessages,
  wireProblems,
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

const TOOL_STEPS = 2;

const REFUSAL = "I'm sorry, but I can't help with summarizing this conversation.";

/**
 * Answers like an agent: two lookups per user turn, then text. Summary requests get a summary,
 * except every other one, which gets a refusal: it must never reach a prompt.
 */
function agentHandler(request: OpenAIServerRequest): OpenAIServerReply {
  if (isSummaryRequest(request)) {
    summaryRequests++;
    return { text: summaryRequests % 2 === 0 ? REFUSAL : summaryAnswer(String(request.index)) };
  }
  return agentReply(request, { toolSteps: TOOL_STEPS });
}

let server: OpenAICompatibleServer | undefined;
let summaryRequests = 0;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const WINDOW = 16_000;
const MAX_TOKENS = 2_000;

/** 22 tools with long descriptions, as agents carry them: with lookup and the 2 memory tools, 25. */
const extraTools = Array.from({ length: 22 }, (_, index) =>
  tool(async () => 'ok', {
    name: `tool_${index}`,
    description: `Tool ${index}: ${words(index + 7, 180)}`,
    schema: z.object({ target: z.string(), limit: z.number().optional(), note: z.string() }),
  }),
);

describe('end to end through @langchain/openai and a local OpenAI-compatible server', () => {
  for (const api of ['chat', 'responses'] as const) {
    it(`sends valid ${api === 'chat' ? 'Chat Completions' : 'Responses'} requests within the window, 25 tools and max_tokens counted`, async () => {
      server = await startOpenAICompatibleServer({ handler: agentHandler });
      summaryRequests = 0;
      const model = new ChatOpenAI({
        model: 'gpt-4o-mini',
        apiKey: 'test',
        maxRetries: 0,
        maxTokens: MAX_TOKENS,
        configuration: { baseURL: server.url },
        ...(api === 'responses' ? { useResponsesApi: true, zdrEnabled: true } : {}),
      });
      const historyStore = createInMemoryHistoryStore();
      const memory = contextMemoryMiddleware({ model, contextWindow: WINDOW, historyStore });
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
        tools: [lookup, ...memoryTools(memory), ...extraTools],
        systemPrompt: 'You are a research agent.',
        middleware: [memory],
      });
      const config = { configurable: { thread_id: 'e2e-thread' } };
      const turns = api === 'chat' ? 34 : 12;
      let messages: BaseMessage[] = [];
      for (let turn = 1; turn <= turns; turn++) {
        const state = await agent.invoke(
          { messages: [...messages, new HumanMessage(`Question ${turn}: ${words(turn, 25)}?`)] },
          config,
        );
        messages = state.messages;
      }

      const agentRequests = server.requests.filter((request) => !isSummaryRequest(request));
      expect(agentRequests).toHaveLength(turns * (TOOL_STEPS + 1));
      let summarized = 0;
      const counter = memory.manager.counter;
      for (const request of agentRequests) {
        expect(request.endpoint).toBe(api === 'chat' ? 'chat.completions' : 'responses');
        const tools = request.body.tools as unknown[];
        expect(tools).toHaveLength(25);
        const requested = (request.body.max_tokens ??
          request.body.max_completion_tokens ??
          request.body.max_output_tokens) as number;
        expect(requested).toBe(MAX_TOKENS);
        const fixed = countToolDefinitions(tools, counter) + requested;
        expect(wireProblems(request), `request ${request.index}`).toEqual([]);
        expect(counter.countMessages(wireMessages(request)) + fixed).toBeLessThanOrEqual(WINDOW);
        // ctxmem's markers stay on the LangChain side; a refused summary never becomes one.
        const body = JSON.stringify(request.body);
        expect(body).not.toContain('"ctxmem"');
        expect(body).not.toContain("can't help with summarizing");
        if (body.includes(SUMMARY_HEADING)) summarized++;
      }
      // At least one refusal was served (every second summary request) over the long run.
      expect(summaryRequests).toBeGreaterThanOrEqual(api === 'chat' ? 2 : 1);
      expect(summaryRequests).toBeLessThan(agentRequests.length / 3);
      expect(summarized).toBeGreaterThan(0);
      // The agent state is the conversation as it happened, recorded once.
      expect(messages).toHaveLength(turns * (2 * TOOL_STEPS + 2));
      expect(await historyStore.count({ sessionId: 'e2e-thread' })).toBe(
        turns * (2 * TOOL_STEPS + 2),
      );
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

import { createOpenAI } from '@ai-sdk/openai';
import { fromOpenAIChat, type OpenAIChatMessage } from '@ctxmem/core';
import { TOOL_DEFINITION_OVERHEAD } from '@ctxmem/core/adapter-kit';
import {
  type OpenAICompatibleServer,
  type OpenAIServerRequest,
  startOpenAICompatibleServer,
} from '@ctxmem/core/test';
import {
  generateText,
  jsonSchema,
  type ModelMessage,
  stepCountIs,
  type ToolSet,
  tool,
  wrapLanguageModel,
} from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { contextMemoryMiddleware } from './middleware/index.js';
import { summaryAnswer, words } from './mock-agent.test-support.js';

const WINDOW = 16_000;
const MAX_OUTPUT = 2_000;
const TOOL_COUNT = 25;
const SUMMARY_MARKER = 'You maintain the rolling context summary';

/** 25 tools with long descriptions and schemas, about 6,000 tokens of definitions in all. */
function manyTools(): ToolSet {
  const tools: ToolSet = {};
  for (let index = 0; index < TOOL_COUNT; index++) {
    const properties: Record<string, { type: 'string'; description: string }> = {};
    for (let field = 0; field < 6; field++) {
      properties[`field_${field}`] = {
        type: 'string',
        description: `Field ${field} of tool ${index}: ${words(index * 31 + field, 14)}.`,
      };
    }
    tools[`tool_${index}`] = tool({
      description: `Tool ${index}. ${words(index + 1, 90)}.`,
      inputSchema: jsonSchema<Record<string, string>>({ type: 'object', properties }),
      execute: async () => words(index * 7 + 3, 350),
    });
  }
  return tools;
}

type Item = Record<string, unknown>;

/** Calls a tool twice per user turn, then answers; summary requests get a summary. */
function handler(request: OpenAIServerRequest) {
  const text = JSON.stringify(request.body);
  if (text.includes(SUMMARY_MARKER)) return { text: summaryAnswer(String(request.index)) };
  const messages = request.body.messages as Item[];
  let lastUser = messages.length - 1;
  while (lastUser >= 0 && messages[lastUser]!.role !== 'user') lastUser--;
  const results = messages.slice(lastUser + 1).filter((item) => item.role === 'tool').length;
  if (results < 2) {
    return {
      toolCalls: [{ name: `tool_${request.index % TOOL_COUNT}`, arguments: { field_0: 'x' } }],
    };
  }
  return { text: `Answer ${request.index}: ${words(request.index, 12)}` };
}

let server: OpenAICompatibleServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('the whole request on the wire through @ai-sdk/openai', () => {
  it('keeps tool definitions + messages + requested output within the window over 100+ calls', async () => {
    server = await startOpenAICompatibleServer({ handler });
    const openai = createOpenAI({ baseURL: server.url, apiKey: 'test' });
    const middleware = contextMemoryMiddleware({ contextWindow: WINDOW });
    const model = wrapLanguageModel({ model: openai.chat('gpt-4o-mini'), middleware });
    const tools = manyTools();
    const messages: ModelMessage[] = [];
    for (let turn = 1; turn <= 34; turn++) {
      messages.push({ role: 'user', content: `Question ${turn}: ${words(turn, 30)}?` });
      const result = await generateText({
        model,
        system: 'You are a research agent with many tools.',
        messages,
        tools,
        maxOutputTokens: MAX_OUTPUT,
        stopWhen: stepCountIs(5),
        providerOptions: { ctxmem: { sessionId: 'wire' } },
      });
      messages.push(...result.responseMessages);
    }
    const counter = middleware.manager('gpt-4o-mini')!.counter;
    const agentRequests = server.requests.filter(
      (request) => !JSON.stringify(request.body).includes(SUMMARY_MARKER),
    );
    expect(agentRequests.length).toBeGreaterThanOrEqual(100);
    let largest = 0;
    for (const request of agentRequests) {
      const body = request.body as Item;
      const wireTools = body.tools as Item[];
      expect(wireTools).toHaveLength(TOOL_COUNT);
      // The tools exactly as they went over the wire, counted as JSON, plus the wrapper overhead.
      const toolTokens = wireTools.reduce(
        (sum, wireTool) =>
          sum + counter.countText(JSON.stringify(wireTool)) + TOOL_DEFINITION_OVERHEAD,
        0,
      );
      const messageTokens = counter.countMessages(
        fromOpenAIChat(body.messages as OpenAIChatMessage[]),
      );
      const requested = (body.max_tokens ?? body.max_completion_tokens) as number;
      expect(requested).toBe(MAX_OUTPUT);
      const total = toolTokens + messageTokens + requested;
      largest = Math.max(largest, total);
      expect(total, `request ${request.index}`).toBeLessThanOrEqual(WINDOW);
    }
    // The history outgrew the window many times over, so the guarantee was exercised.
    expect(largest).toBeGreaterThan(WINDOW * 0.6);
  });

  it('fails the call with BudgetExceededError when the tools alone exceed the window', async () => {
    server = await startOpenAICompatibleServer({ handler });
    const openai = createOpenAI({ baseURL: server.url, apiKey: 'test' });
    const middleware = contextMemoryMiddleware({ contextWindow: 4_000 });
    const model = wrapLanguageModel({ model: openai.chat('gpt-4o-mini'), middleware });
    await expect(
      generateText({
        model,
        prompt: 'hello',
        tools: manyTools(),
        maxOutputTokens: 500,
        maxRetries: 0,
      }),
    ).rejects.toThrow(/tool definitions/);
    expect(server.requests).toHaveLength(0);
  });
});

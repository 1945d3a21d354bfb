import { createOpenAI } from '@ai-sdk/openai';
import { fromOpenAIChat, type Message, type OpenAIChatMessage } from '@ctxmem/core';
import { SUMMARY_HEADING } from '@ctxmem/core/adapter-kit';
import {
  type OpenAICompatibleServer,
  type OpenAIServerReply,
  type OpenAIServerRequest,
  startOpenAICompatibleServer,
} from '@ctxmem/core/test';
import {
  generateText,
  jsonSchema,
  type ModelMessage,
  stepCountIs,
  streamText,
  tool,
  wrapLanguageModel,
} from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { contextMemoryMiddleware } from './middleware/index.js';
import { summaryAnswer, words } from './mock-agent.test-support.js';

type Item = Record<string, unknown>;

const SUMMARY_MARKER = 'You maintain the rolling context summary';
const TOOL_STEPS = 2;

/** Answers like an agent: two tool calls per user turn, then text; summary requests get a summary. */
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

/** Problems with a Chat Completions request a provider would reject. */
function chatProblems(messages: readonly Item[]): string[] {
  const problems: string[] = [];
  messages.forEach((message, index) => {
    if (message.role === 'tool') {
      let caller = index - 1;
      while (caller >= 0 && messages[caller]!.role === 'tool') caller--;
      const calls = (messages[caller]?.tool_calls as Array<{ id: string }> | undefined) ?? [];
      if (
        messages[caller]?.role !== 'assistant' ||
        !calls.some((call) => call.id === message.tool_call_id)
      ) {
        problems.push(`tool message ${index} does not follow the assistant message that called it`);
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
      if (!answered)
        problems.push(`tool call ${call.id} at ${index} is not answered right after it`);
    }
  });
  const first = messages.find(
    (message) => message.role !== 'system' && message.role !== 'developer',
  );
  if (first && first.role !== 'user')
    problems.push(`the first message is a ${String(first.role)} message`);
  return problems;
}

/** Problems with a Responses request: every function call answered once, after it. */
function responsesProblems(input: readonly Item[]): string[] {
  const problems: string[] = [];
  const open = new Set<string>();
  const seen = new Set<string>();
  for (const item of input) {
    if (item.type === 'function_call') {
      open.add(item.call_id as string);
      seen.add(item.call_id as string);
    } else if (item.type === 'function_call_output') {
      if (!open.delete(item.call_id as string))
        problems.push(`output ${String(item.call_id)} has no call before it`);
    }
  }
  for (const id of open) problems.push(`call ${id} has no output`);
  return problems;
}

function itemText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content.map((part) => (part as { text?: string }).text ?? '').join('');
  return '';
}

/** The Responses input as core messages, to count it with the core counter. */
function responsesAsMessages(input: readonly Item[]): Message[] {
  return input.map((item): Message => {
    if (
      item.type !== undefined &&
      item.type !== 'message' &&
      !String(item.type).startsWith('function_call')
    ) {
      throw new Error(`unexpected input item ${JSON.stringify(item)}`);
    }
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

async function converse(api: 'chat' | 'responses', stream: boolean) {
  server = await startOpenAICompatibleServer({ handler: agentHandler });
  const openai = createOpenAI({ baseURL: server.url, apiKey: 'test' });
  const base = api === 'chat' ? openai.chat('gpt-4o-mini') : openai.responses('gpt-4o-mini');
  const middleware = contextMemoryMiddleware({ contextWindow: 8_000, backgroundCompaction: false });
  const model = wrapLanguageModel({ model: base, middleware });
  const lookup = tool({
    description: 'Looks something up.',
    inputSchema: jsonSchema<{ query: string }>({
      type: 'object',
      properties: { query: { type: 'string' } },
      required: ['query'],
    }),
    execute: async ({ query }) => words(query.length * 104_729, 450),
  });
  const messages: ModelMessage[] = [];
  for (let turn = 1; turn <= 14; turn++) {
    messages.push({ role: 'user', content: `Question ${turn}: ${words(turn, 25)}?` });
    const settings = {
      model,
      instructions: 'You are a research agent.',
      messages,
      tools: { lookup },
      stopWhen: stepCountIs(5),
      // `store: false` makes the Responses API send every item in full instead of references.
      providerOptions: { ctxmem: { sessionId: `${api}-session` }, openai: { store: false } },
    };
    if (stream) {
      const result = streamText(settings);
      await result.consumeStream();
      messages.push(...(await result.responseMessages));
    } else {
      messages.push(...(await generateText(settings)).responseMessages);
    }
  }
  const manager = middleware.manager('gpt-4o-mini')!;
  const agentRequests = server.requests.filter(
    (request) => !JSON.stringify(request.body).includes(SUMMARY_MARKER),
  );
  return { manager, agentRequests, summaryRequests: server.requests.length - agentRequests.length };
}

describe('end to end through @ai-sdk/openai and a local OpenAI-compatible server', () => {
  for (const stream of [false, true]) {
    it(`sends valid Chat Completions requests within budget${stream ? ' (streaming)' : ''}`, async () => {
      const { manager, agentRequests, summaryRequests } = await converse('chat', stream);
      expect(agentRequests).toHaveLength(14 * (TOOL_STEPS + 1));
      let summarized = 0;
      for (const request of agentRequests) {
        expect(request.stream).toBe(stream);
        const wire = request.body.messages as OpenAIChatMessage[];
        expect(chatProblems(wire as unknown as Item[]), `request ${request.index}`).toEqual([]);
        expect(manager.counter.countMessages(fromOpenAIChat(wire))).toBeLessThanOrEqual(
          manager.budget.budgetTokens,
        );
        expect(JSON.stringify(request.body)).not.toContain('ctxmem');
        if (JSON.stringify(wire).includes(SUMMARY_HEADING)) summarized++;
      }
      expect(summaryRequests).toBeGreaterThanOrEqual(1);
      expect(summarized).toBeGreaterThan(0);
    });

    it(`sends valid Responses requests within budget${stream ? ' (streaming)' : ''}`, async () => {
      const { manager, agentRequests, summaryRequests } = await converse('responses', stream);
      expect(agentRequests).toHaveLength(14 * (TOOL_STEPS + 1));
      let summarized = 0;
      for (const request of agentRequests) {
        const input = request.body.input as Item[];
        expect(responsesProblems(input), `request ${request.index}`).toEqual([]);
        expect(manager.counter.countMessages(responsesAsMessages(input))).toBeLessThanOrEqual(
          manager.budget.budgetTokens,
        );
        if (JSON.stringify(input).includes(SUMMARY_HEADING)) summarized++;
      }
      expect(summaryRequests).toBeGreaterThanOrEqual(1);
      expect(summarized).toBeGreaterThan(0);
    });
  }

  it('answers scripted errors, unknown routes and embeddings', async () => {
    server = await startOpenAICompatibleServer({
      replies: [{ status: 429, error: 'slow down' }, 'fine'],
    });
    const openai = createOpenAI({ baseURL: server.url, apiKey: 'test' });
    await expect(
      generateText({ model: openai.chat('gpt-4o-mini'), prompt: 'hi', maxRetries: 0 }),
    ).rejects.toThrow(/slow down/);
    const { text } = await generateText({
      model: openai.chat('gpt-4o-mini'),
      prompt: 'hi',
      maxRetries: 0,
    });
    expect(text).toBe('fine');
    const missing = await fetch(`${server.url}/models`);
    expect(missing.status).toBe(404);
    const embeddings = await fetch(`${server.url}/embeddings`, {
      method: 'POST',
      body: JSON.stringify({
        model: 'text-embedding-3-small',
        input: ['green tea', 'green tea', 'a long bicycle ride'],
        dimensions: 8,
      }),
    }).then((answer) => answer.json() as Promise<{ data: Array<{ embedding: number[] }> }>);
    expect(embeddings.data[0]!.embedding).toHaveLength(8);
    expect(embeddings.data[0]!.embedding).toEqual(embeddings.data[1]!.embedding);
    expect(embeddings.data[0]!.embedding).not.toEqual(embeddings.data[2]!.embedding);
    expect(server.requests.map((request) => request.endpoint)).toEqual([
      'chat.completions',
      'chat.completions',
      'embeddings',
    ]);
  });
});

import { createOpenAI } from '@ai-sdk/openai';
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
import { lookupTool, summaryAnswer, words } from './mock-agent.test-support.js';

const TOOL_STEPS = 2;

/** Answers like an agent: two tool calls per user turn, then text; summary requests get a summary. */
function agentHandler(request: OpenAIServerRequest): OpenAIServerReply {
  if (isSummaryRequest(request)) return { text: summaryAnswer(String(request.index)) };
  return agentReply(request, { toolSteps: TOOL_STEPS });
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
  const lookup = lookupTool({ tool, jsonSchema }, { seed: 104_729 });
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
  const agentRequests = server.requests.filter((request) => !isSummaryRequest(request));
  return { manager, agentRequests, summaryRequests: server.requests.length - agentRequests.length };
}

describe('end to end through @ai-sdk/openai and a local OpenAI-compatible server', () => {
  for (const api of ['chat', 'responses'] as const) {
    for (const stream of [false, true]) {
      const name = `${api === 'chat' ? 'Chat Completions' : 'Responses'} requests`;
      it(`sends valid ${name} within budget${stream ? ' (streaming)' : ''}`, async () => {
        const { manager, agentRequests, summaryRequests } = await converse(api, stream);
        expect(agentRequests).toHaveLength(14 * (TOOL_STEPS + 1));
        let summarized = 0;
        for (const request of agentRequests) {
          expect(request.endpoint).toBe(api === 'chat' ? 'chat.completions' : 'responses');
          expect(request.stream).toBe(stream);
          // The summary follows the instructions as a system message: providers merge the block.
          expect(
            wireProblems(request, { systemMessages: 'leading' }),
            `request ${request.index}`,
          ).toEqual([]);
          expect(manager.counter.countMessages(wireMessages(request))).toBeLessThanOrEqual(
            manager.budget.budgetTokens,
          );
          const body = JSON.stringify(request.body);
          expect(body).not.toContain('ctxmem');
          if (body.includes(SUMMARY_HEADING)) summarized++;
        }
        expect(summaryRequests).toBeGreaterThanOrEqual(1);
        expect(summarized).toBeGreaterThan(0);
      });
    }
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

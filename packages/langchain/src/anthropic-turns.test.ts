/*
 * The kept check of `packages/ai-sdk/src/provider-turns.test.ts` for LangChain: 40 tool-using user
 * turns through the `createAgent` middleware and `@langchain/anthropic`'s `ChatAnthropic`
 * (thinking on) in a 16,000-token window, against the fake Anthropic server holding the provider
 * to the same window and counting as Claude might. No rule-break rejection, no failed turn, at
 * most 2 overflow rejections and none in the second half, the planted facts still in front of the
 * model at the end.
 *
 * `CTXMEM_PROVIDER_CHECK_REPORT=1` prints the figures.
 */
import { ChatAnthropic } from '@langchain/anthropic';
import { type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { createAgent } from 'langchain';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createScriptedAgent,
  type FakeProviderServer,
  startAnthropicServer,
} from '../../../test/providers/index.js';
import { contextMemoryMiddleware } from './agent/index.js';
import { words } from './langchain.test-support.js';

const WINDOW = 16_000;
const TURNS = 40;
const FACTS = new Map([
  [1, 'FACT-1: the staging database listens on port 8443.'],
  [4, 'FACT-2: the release train leaves every Thursday at 14:00 UTC.'],
  [9, 'FACT-3: the on-call alias is ops-blue.'],
]);

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('40 tool-using turns in a 16k window through @langchain/anthropic', () => {
  it('no rejected rule, no failed turn, at most 2 overflows and none in the second half', async () => {
    const script = createScriptedAgent();
    server = await startAnthropicServer({ handler: script.handler, contextWindow: WINDOW });
    const model = new ChatAnthropic({
      model: 'claude-sonnet-4-5',
      apiKey: 'test',
      anthropicApiUrl: server.origin,
      maxRetries: 0,
      maxTokens: 2_000,
      thinking: { type: 'enabled', budget_tokens: 1_024 },
    });
    const memory = contextMemoryMiddleware({ model, contextWindow: WINDOW });
    const lookup = tool(
      async ({ query }: { query: string }) =>
        JSON.stringify({ query, rows: words(query.length * 7919, 450).split(' ') }),
      {
        name: 'lookup',
        description: 'Looks a record up.',
        schema: z.object({ query: z.string() }),
      },
    );
    const agent = createAgent({
      model,
      tools: [lookup],
      systemPrompt: 'You are a research agent. Use the lookup tool, then answer briefly.',
      middleware: [memory],
    });
    const config = { configurable: { thread_id: 'anthropic-turns' } };
    const requestsBefore: number[] = [];
    const failedTurns: string[] = [];
    let messages: BaseMessage[] = [];
    for (let turn = 1; turn <= TURNS; turn++) {
      requestsBefore[turn] = server.requests.length;
      const fact = FACTS.get(turn);
      const question = new HumanMessage(
        `Question ${turn}: look up record ${turn} and tell me what changed.${fact ? ` Remember this: ${fact}` : ''}`,
      );
      try {
        const state = await agent.invoke({ messages: [...messages, question] }, config);
        messages = state.messages;
      } catch (error) {
        failedTurns.push(`turn ${turn}: ${error instanceof Error ? error.message : String(error)}`);
        messages = [...messages, question];
      }
    }
    const overflows = server.rejected('overflow');
    const secondHalf = requestsBefore[TURNS / 2 + 1]!;
    const answered = server.requests.filter(
      (request) =>
        !request.rejection &&
        !JSON.stringify(request.body).includes('rolling context summary of a conversation'),
    );
    const lastText = JSON.stringify(answered.at(-1)!.body);
    const figures = {
      requests: server.requests.length,
      ruleRejections: server.rejected('rule').map((request) => request.rejection!.message),
      failedTurns,
      overflows: overflows.length,
      overflowsInSecondHalf: overflows.filter((request) => request.index >= secondHalf).length,
      factsMissing: [...FACTS.values()].filter((fact) => !lastText.includes(fact)),
      largestInputTokens: Math.max(...server.requests.map((request) => request.inputTokens ?? 0)),
    };
    if (process.env.CTXMEM_PROVIDER_CHECK_REPORT) {
      console.log(
        JSON.stringify({
          provider: 'langchain-anthropic',
          ...figures,
          failedTurns: failedTurns.length,
          firstFailures: failedTurns.slice(0, 2),
        }),
      );
    }
    expect(figures).toMatchObject({
      ruleRejections: [],
      failedTurns: [],
      overflowsInSecondHalf: 0,
      factsMissing: [],
    });
    expect(figures.overflows).toBeLessThanOrEqual(2);
  });
});

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
import { type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createScriptedAgent,
  type FakeProviderServer,
  keptCheckFigures,
  keptCheckQuestion,
  startAnthropicServer,
  KEPT_CHECK_TURNS as TURNS,
  KEPT_CHECK_WINDOW as WINDOW,
} from '../../../test/providers/index.js';
import { createAnthropicResearchAgent } from './anthropic-agent.test-support.js';

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('40 tool-using turns in a 16k window through @langchain/anthropic', () => {
  it('no rejected rule, no failed turn, at most 2 overflows and none in the second half', async () => {
    const script = createScriptedAgent();
    server = await startAnthropicServer({ handler: script.handler, contextWindow: WINDOW });
    const agent = createAnthropicResearchAgent({
      origin: server.origin,
      contextWindow: WINDOW,
      resultWords: 450,
    });
    const config = { configurable: { thread_id: 'anthropic-turns' } };
    const requestsBefore: number[] = [];
    const failedTurns: string[] = [];
    let messages: BaseMessage[] = [];
    for (let turn = 1; turn <= TURNS; turn++) {
      requestsBefore[turn] = server.requests.length;
      const question = new HumanMessage(keptCheckQuestion(turn));
      try {
        const state = await agent.invoke({ messages: [...messages, question] }, config);
        messages = state.messages;
      } catch (error) {
        failedTurns.push(`turn ${turn}: ${error instanceof Error ? error.message : String(error)}`);
        messages = [...messages, question];
      }
    }
    const figures = keptCheckFigures({ server, requestsBefore, failedTurns });
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

/*
 * The kept check of `packages/ai-sdk/src/provider-turns.test.ts` for LangChain: 40 tool-using user
 * turns through the `createAgent` middleware and a real provider package (thinking on) in a
 * 16,000-token window, against the provider's fake server holding it to the same window and
 * counting as that provider might. No rule-break rejection, no failed turn, at most 2 overflow
 * rejections and none in the second half, summaries made, the planted facts still in front of the
 * model at the end.
 *
 * On Gemini the scripted agent calls one tool at a time: `@langchain/google-genai` 2.3.2 cannot
 * send parallel results in the form Gemini takes (see `google-genai-wire.test.ts`).
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
  startGeminiServer,
  KEPT_CHECK_TURNS as TURNS,
  KEPT_CHECK_WINDOW as WINDOW,
} from '../../../test/providers/index.js';
import {
  createAnthropicChatModel,
  createGeminiChatModel,
  createResearchAgent,
} from './research-agent.test-support.js';

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const providers = [
  {
    name: '@langchain/anthropic',
    report: 'langchain-anthropic',
    script: {},
    start: startAnthropicServer,
    model: createAnthropicChatModel,
  },
  {
    name: '@langchain/google-genai',
    report: 'langchain-google-genai',
    script: { parallelEvery: 0 },
    start: startGeminiServer,
    model: createGeminiChatModel,
  },
];

describe.each(providers)('40 tool-using turns in a 16k window through $name', (provider) => {
  it('no rejected rule, no failed turn, at most 2 overflows and none in the second half', async () => {
    const script = createScriptedAgent(provider.script);
    server = await provider.start({ handler: script.handler, contextWindow: WINDOW });
    const agent = createResearchAgent({
      model: provider.model({ origin: server.origin }),
      contextWindow: WINDOW,
      resultWords: 450,
    });
    const config = { configurable: { thread_id: `${provider.report}-turns` } };
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
          provider: provider.report,
          ...figures,
          failedTurns: failedTurns.length,
          firstFailures: failedTurns.slice(0, 2),
          summaries: script.counts.summaries,
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
    expect(script.counts.summaries).toBeGreaterThan(0);
  });
});

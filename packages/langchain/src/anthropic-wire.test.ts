/*
 * The LangChain `createAgent` middleware with `@langchain/anthropic`'s `ChatAnthropic`, thinking
 * on, against a fake Anthropic Messages API that enforces Anthropic's documented request rules
 * (test/providers/anthropic-server.ts): long tool loops with compaction must send only requests
 * the provider accepts, with the signed thinking of each tool loop in place.
 */

import { type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createScriptedAgent,
  type FakeProviderServer,
  startAnthropicServer,
} from '../../../test/providers/index.js';
import { createAnthropicChatModel, createResearchAgent } from './research-agent.test-support.js';

const WINDOW = 16_000;

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Block = Record<string, unknown>;

describe('the agent middleware on the wire through @langchain/anthropic', () => {
  it.each([false, true])(
    'sends only requests Anthropic accepts (streaming: %s)',
    async (streaming) => {
      const agentScript = createScriptedAgent({ toolSteps: 2 });
      // The provider's window is twice ctxmem's: this test is about rules, not overflows.
      server = await startAnthropicServer({
        handler: agentScript.handler,
        contextWindow: WINDOW * 2,
      });
      const agent = createResearchAgent({
        model: createAnthropicChatModel({ origin: server.origin, streaming }),
        contextWindow: WINDOW,
        resultWords: 500,
      });
      const config = { configurable: { thread_id: `anthropic-wire-${streaming}` } };
      let messages: BaseMessage[] = [];
      for (let turn = 1; turn <= 10; turn++) {
        const state = await agent.invoke(
          {
            messages: [...messages, new HumanMessage(`Question ${turn}: look up record ${turn}.`)],
          },
          config,
        );
        messages = state.messages;
      }
      expect(server.rejected().map((request) => request.rejection?.message)).toEqual([]);
      expect(agentScript.counts.summaries).toBeGreaterThan(0);
      // Every request in a tool loop carried the loop's signed thinking (the server checks the
      // signature and that it comes first); there were many of them.
      const inLoop = server.requests.filter((request) => {
        const sent = request.body.messages as Array<{ role: string; content: unknown }>;
        const last = sent.at(-1)!;
        return (
          Array.isArray(last.content) &&
          (last.content as Block[]).some((block) => block.type === 'tool_result')
        );
      });
      expect(inLoop.length).toBeGreaterThanOrEqual(20);
      for (const request of inLoop) {
        const sent = request.body.messages as Array<{ role: string; content: Block[] }>;
        expect(sent.at(-2)!.content[0]).toMatchObject({
          type: 'thinking',
          signature: expect.any(String),
        });
      }
    },
  );
});

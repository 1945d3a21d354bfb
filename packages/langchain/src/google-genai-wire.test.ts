/*
 * The LangChain doors through `@langchain/google-genai` 2.3.2's `ChatGoogleGenerativeAI` against
 * the fake Gemini API (test/providers/gemini-server.ts), which enforces Gemini's documented
 * request rules (function call and response turns, thought signatures on Gemini 3) and answers
 * rule breaks and overflows with Gemini's error bodies. What the package does, from its source
 * (dist/chat_models.js, dist/utils/common.js) and its client `@google/generative-ai` 0.24.1
 * (dist/index.mjs):
 *
 * - `baseUrl` and `apiKey` go to `@google/generative-ai`, which posts to
 *   `{baseUrl}/v1beta/models/{model}:generateContent`, or `:streamGenerateContent?alt=sse` when
 *   the model streams (`streaming: true`), with `thinkingConfig` in `generationConfig`.
 * - A `functionCall` part's `thoughtSignature` is kept in the answer's `additional_kwargs`
 *   (`__gemini_function_call_thought_signatures__`, by tool call id) and put back on the part when
 *   the message is sent again; a `thought` part becomes a `thinking` block and goes back as a
 *   thought. So thought signatures round-trip through the package itself, and these tests run
 *   with thinking on, on `gemini-3-pro-preview`, where the server validates them strictly. (When
 *   a signature is missing the package sends a fixed dummy signature for Gemini 3 models, which
 *   the server would reject as not valid: none may be lost.)
 * - An HTTP error becomes `GoogleGenerativeAIFetchError` (not renamed, `name` is `Error`) with
 *   `status` 400 and the message `[GoogleGenerativeAI Error]: Error fetching from <url>: [400 Bad
 *   Request] <the body's error.message>`; LangChain's caller does not retry a 400, and nothing
 *   wraps it into LangChain's `ContextOverflowError`. Core's `detectContextOverflow` reads
 *   Gemini's words and numbers from that message.
 * - Upstream bug: each `ToolMessage` becomes a `user` content of its own
 *   (`convertBaseMessagesToContent` never merges them), so the results of parallel tool calls
 *   reach Gemini as several function response turns, which Gemini rejects ("the number of
 *   function response parts is equal to the number of function call parts"). The scripted agent
 *   therefore calls one tool at a time here; the last test pins the bug without ctxmem.
 */
import {
  BudgetExceededError,
  ContextOverflowError,
  type CtxmemEvent,
  createExtractiveSummarizer,
  createTokenCounter,
  detectContextOverflow,
} from '@ctxmem/core';
import { InMemoryChatMessageHistory } from '@langchain/core/chat_history';
import { type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { createAgent } from 'langchain';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createScriptedAgent,
  type GeminiServer,
  startGeminiServer,
} from '../../../test/providers/index.js';
import { contextMemoryMiddleware } from './agent/index.js';
import { historyRounds, words } from './langchain.test-support.js';
import { ContextChatMemory } from './memory/index.js';
import {
  createGeminiChatModel,
  createLookupTool,
  createResearchAgent,
} from './research-agent.test-support.js';

const WINDOW = 16_000;
const counter = createTokenCounter();

let server: GeminiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Part = Record<string, unknown>;
interface Content {
  role: string;
  parts: Part[];
}

const contentsOf = (request: { body: Record<string, unknown> }) =>
  request.body.contents as Content[];
const calls = (content: Content | undefined) =>
  content?.role === 'model' ? content.parts.filter((part) => 'functionCall' in part) : [];
const responses = (content: Content | undefined) =>
  content?.role === 'user' ? content.parts.filter((part) => 'functionResponse' in part) : [];

describe('the agent middleware on the wire through @langchain/google-genai', () => {
  it.each([false, true])(
    'sends only requests Gemini accepts over a long tool loop with compaction (streaming: %s)',
    async (streaming) => {
      // One call per step: see the upstream bug above.
      const script = createScriptedAgent({ toolSteps: 2, parallelEvery: 0 });
      // The provider's window is twice ctxmem's: this test is about rules, not overflows.
      server = await startGeminiServer({ handler: script.handler, contextWindow: WINDOW * 2 });
      const agent = createResearchAgent({
        model: createGeminiChatModel({ origin: server.origin, streaming }),
        contextWindow: WINDOW,
        resultWords: 500,
      });
      const config = { configurable: { thread_id: `gemini-wire-${streaming}` } };
      let messages: BaseMessage[] = [];
      for (let turn = 1; turn <= 10; turn++) {
        const question = new HumanMessage(`Question ${turn}: look up record ${turn}.`);
        const state = await agent.invoke({ messages: [...messages, question] }, config);
        messages = state.messages;
      }
      expect(server.rejected().map((request) => request.rejection?.message)).toEqual([]);
      expect(script.counts.summaries).toBeGreaterThan(0);
      expect(server.requests.every((request) => request.stream === streaming)).toBe(true);
      // Every function call turn sent is followed by its one response turn, part for part.
      for (const request of server.requests) {
        const contents = contentsOf(request);
        contents.forEach((content, index) => {
          const sent = calls(content).length;
          if (sent > 0) expect(responses(contents[index + 1])).toHaveLength(sent);
        });
      }
      // Each step of a tool loop sent the loop's calls back with the signatures the server
      // handed out (the server checks them): no skip sentinel, no dummy, and there were many.
      const inLoop = server.requests.filter(
        (request) => responses(contentsOf(request).at(-1)).length > 0,
      );
      expect(inLoop.length).toBeGreaterThanOrEqual(20);
      for (const request of inLoop) {
        expect(calls(contentsOf(request).at(-2))[0]).toMatchObject({
          thoughtSignature: expect.any(String),
        });
      }
      expect(server.signatureSkips()).toEqual([]);
    },
  );
});

/** A server that counts `scale` × cl100k_base (twice Gemini's usual figure): ctxmem undercounts. */
async function overcountingServer(scale: number) {
  return startGeminiServer({
    handler: () => ({ text: 'Done.' }),
    contextWindow: WINDOW,
    tokenizer: { scale },
  });
}

describe('overflow recovery through @langchain/google-genai', () => {
  it('detectContextOverflow reads the error the package throws for Gemini\'s "too long" 400', async () => {
    server = await overcountingServer(2.4);
    const error = await createGeminiChatModel({ origin: server.origin })
      .invoke(historyRounds(24))
      .catch((caught: unknown) => caught);
    const [rejected] = server.rejected('overflow');
    expect(rejected).toBeDefined();
    // What reaches the caller is @google/generative-ai's error, as the package leaves it.
    expect(error).toMatchObject({
      status: 400,
      message: expect.stringContaining(`[400 Bad Request] ${rejected!.rejection!.message}`),
    });
    expect(detectContextOverflow(error)).toMatchObject({
      providerTokens: rejected!.inputTokens,
      limitTokens: WINDOW,
    });
  });

  it.each([false, true])(
    'the createAgent middleware compacts, sends once more and learns the ratio (streaming: %s)',
    async (streaming) => {
      server = await overcountingServer(2.4);
      const model = createGeminiChatModel({ origin: server.origin, streaming });
      const events: CtxmemEvent[] = [];
      const memory = contextMemoryMiddleware({
        model,
        contextWindow: WINDOW,
        summarizer: createExtractiveSummarizer({ counter }),
        onEvent: (event) => events.push(event),
      });
      const agent = createAgent({ model, tools: [], middleware: [memory] });
      const config = { configurable: { thread_id: `gemini-overflow-${streaming}` } };
      let messages = [...historyRounds(24), new HumanMessage('What did we settle on?')];
      const state = await agent.invoke({ messages }, config);
      expect(state.messages.at(-1)?.text).toBe('Done.');
      expect(server.requests.map((request) => request.rejection?.kind ?? 'accepted')).toEqual([
        'overflow',
        'accepted',
      ]);
      expect(server.requests[1]!.inputTokens).toBeLessThanOrEqual(WINDOW);
      expect(server.requests.every((request) => request.stream === streaming)).toBe(true);
      expect(events.filter((event) => event.type === 'context-overflow')).toMatchObject([
        {
          outcome: 'retrying',
          providerTokens: server.requests[0]!.inputTokens,
          limitTokens: WINDOW,
        },
      ]);
      // The rejection's count and the answer's usage were both learned.
      expect(memory.manager.calibration().observations).toBe(2);
      expect(memory.manager.calibration().ratio).toBeGreaterThan(1.5);

      // The next turns go through at the first attempt.
      messages = state.messages;
      for (let turn = 0; turn < 3; turn++) {
        const next = await agent.invoke(
          { messages: [...messages, new HumanMessage(`And ${words(turn, 120)}?`)] },
          config,
        );
        messages = next.messages;
      }
      expect(server.rejected()).toHaveLength(1);
    },
  );

  it("fails the run with ctxmem's ContextOverflowError when no smaller request fits", async () => {
    server = await overcountingServer(40);
    const model = createGeminiChatModel({ origin: server.origin });
    const memory = contextMemoryMiddleware({
      model,
      contextWindow: WINDOW,
      summarizer: createExtractiveSummarizer({ counter }),
    });
    const agent = createAgent({ model, tools: [], middleware: [memory] });
    const error = await agent
      // The newest message alone is more than the provider takes: no retry can fit it.
      .invoke({ messages: [...historyRounds(4), new HumanMessage(`Well? ${words(3, 400)}`)] })
      .catch((caught: unknown) => caught);
    // LangChain wraps a middleware's error in its MiddlewareError, with ours as the cause.
    const overflow = (error as { cause?: unknown }).cause;
    expect(ContextOverflowError.isInstance(overflow)).toBe(true);
    expect((overflow as ContextOverflowError).providerTokens).toBe(server.requests[0]!.inputTokens);
    expect(BudgetExceededError.isInstance((overflow as ContextOverflowError).cause)).toBe(true);
    // Nothing smaller could be sent: one request, no loop.
    expect(server.requests).toHaveLength(1);
  });
});

describe('ContextChatMemory.callModel recovers through @langchain/google-genai', () => {
  it('loads the variables again, smaller, and runs the call once more', async () => {
    server = await overcountingServer(2.4);
    const model = createGeminiChatModel({ origin: server.origin });
    const memory = new ContextChatMemory({
      model,
      contextWindow: WINDOW,
      returnMessages: true,
      summarizer: createExtractiveSummarizer({ counter }),
      chatHistory: new InMemoryChatMessageHistory(historyRounds(24)),
      scope: { sessionId: 'memory' },
    });
    const input = 'What did we settle on?';
    const seen: number[] = [];
    const answer = await memory.callModel({ input }, async (variables) => {
      const prompt = variables.history as BaseMessage[];
      seen.push(prompt.length);
      return model.invoke([...prompt, new HumanMessage(input)]);
    });
    expect(answer.text).toBe('Done.');
    expect(server.requests.map((request) => request.rejection?.kind ?? 'accepted')).toEqual([
      'overflow',
      'accepted',
    ]);
    expect(seen[1]).toBeLessThan(seen[0]!);
  });
});

describe('@langchain/google-genai 2.3.2 and parallel tool calls (upstream bug, without ctxmem)', () => {
  it('sends the results of parallel calls as separate turns, which Gemini rejects', async () => {
    // When this fails, the package merges them: let the scripted agent above call in parallel.
    server = await startGeminiServer({
      handler: createScriptedAgent({ parallelEvery: 1 }).handler,
    });
    const agent = createAgent({
      model: createGeminiChatModel({ origin: server.origin }),
      tools: [createLookupTool(10)],
    });
    const error = await agent
      .invoke({ messages: [new HumanMessage('Question 1: look up record 1.')] })
      .catch((caught: unknown) => caught);
    expect(String((error as Error).message)).toContain('the number of function response parts');
    const [rejected] = server.rejected('rule');
    const contents = contentsOf(rejected!);
    expect(calls(contents.at(-3))).toHaveLength(2);
    expect([responses(contents.at(-2)).length, responses(contents.at(-1)).length]).toEqual([1, 1]);
  });
});

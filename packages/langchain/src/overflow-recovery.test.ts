/*
 * The LangChain doors against Anthropic's real error path: `ChatAnthropic` (`@langchain/anthropic`)
 * over `@anthropic-ai/sdk`, whose fetch is a small double that counts tokens its own way (twice
 * what `o200k_base` counts of the text it receives) and answers as the Messages API does: 400
 * `invalid_request_error` "prompt is too long: N tokens > M maximum" when the input and
 * `max_tokens` do not fit, else a message with `usage` whose cached tokens are reported apart.
 * `@anthropic-ai/sdk` turns the 400 into `BadRequestError` (core/error.js), and
 * `@langchain/anthropic` wraps it into LangChain's `ContextOverflowError` with `lc_error_code`
 * `CONTEXT_OVERFLOW` (dist/utils/errors.js, `wrapAnthropicClientError`).
 */
import {
  BudgetExceededError,
  ContextOverflowError,
  type CtxmemEvent,
  createExtractiveSummarizer,
  createTokenCounter,
} from '@ctxmem/core';
import { ChatAnthropic } from '@langchain/anthropic';
import { InMemoryChatMessageHistory } from '@langchain/core/chat_history';
import { type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import { contextMemoryMiddleware } from './agent/index.js';
import { historyRounds, words } from './langchain.test-support.js';
import { ContextChatMemory } from './memory/index.js';

const counter = createTokenCounter();
const WINDOW = 16_000;
const MAX_TOKENS = 1_000;
const FACTOR = 2;
/**
 * Rounds (about 357 counted tokens each) under ctxmem's first trigger (ratio 1.2 before any
 * report) that a provider counting twice as much cannot take with 1,000 tokens of output.
 */
const ROUNDS = 24;

function stringsOf(value: unknown, into: string[] = []): string[] {
  if (typeof value === 'string') into.push(value);
  else if (Array.isArray(value)) for (const item of value) stringsOf(item, into);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (key !== 'type' && key !== 'role' && key !== 'id') stringsOf(item, into);
    }
  }
  return into;
}

/** A fetch that answers as Anthropic's Messages API does, counting `factor` × `o200k_base`. */
function anthropicApi({ factor = FACTOR, cacheShare = 0.5 } = {}) {
  const requests: Array<{ providerTokens: number; accepted: boolean }> = [];
  const fetch = async (_url: unknown, init?: { body?: unknown }): Promise<Response> => {
    const body = JSON.parse(String(init?.body)) as {
      model: string;
      max_tokens: number;
      system?: unknown;
      messages: unknown;
      tools?: unknown;
    };
    const text = stringsOf([body.system, body.messages, body.tools]);
    const providerTokens = Math.ceil(
      factor * text.reduce((sum, piece) => sum + counter.countText(piece), 0),
    );
    const accepted = providerTokens + body.max_tokens <= WINDOW;
    requests.push({ providerTokens, accepted });
    const headers = { 'content-type': 'application/json', 'request-id': `req_${requests.length}` };
    if (!accepted) {
      const error = {
        type: 'error',
        error: {
          type: 'invalid_request_error',
          message: `prompt is too long: ${providerTokens} tokens > ${WINDOW} maximum`,
        },
      };
      return new Response(JSON.stringify(error), { status: 400, headers });
    }
    const cached = Math.floor(providerTokens * cacheShare);
    const message = {
      id: `msg_${requests.length}`,
      type: 'message',
      role: 'assistant',
      model: body.model,
      content: [{ type: 'text', text: 'Done.' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: {
        input_tokens: providerTokens - cached,
        cache_read_input_tokens: cached,
        cache_creation_input_tokens: 0,
        output_tokens: 2,
      },
    };
    return new Response(JSON.stringify(message), { status: 200, headers });
  };
  const model = new ChatAnthropic({
    model: 'claude-sonnet-4-5',
    apiKey: 'test-key',
    maxTokens: MAX_TOKENS,
    maxRetries: 0,
    clientOptions: { fetch: fetch as typeof globalThis.fetch },
  });
  return { model, requests };
}

describe('the createAgent middleware recovers from a "too long" rejection', () => {
  it('prepares the model call again, smaller, sends it once more, and learns the ratio', async () => {
    const api = anthropicApi();
    const events: CtxmemEvent[] = [];
    const memory = contextMemoryMiddleware({
      model: api.model,
      contextWindow: WINDOW,
      summarizer: createExtractiveSummarizer({ counter }),
      onEvent: (event) => events.push(event),
    });
    const agent = createAgent({ model: api.model, tools: [], middleware: [memory] });
    const config = { configurable: { thread_id: 'agent' } };
    let messages = [...historyRounds(ROUNDS), new HumanMessage('What did we settle on?')];
    const state = await agent.invoke({ messages }, config);
    expect(state.messages.at(-1)?.text).toBe('Done.');
    expect(api.requests.map((request) => request.accepted)).toEqual([false, true]);
    expect(events.filter((event) => event.type === 'context-overflow')).toMatchObject([
      { outcome: 'retrying', providerTokens: api.requests[0]!.providerTokens, limitTokens: WINDOW },
    ]);
    // The rejection's count and the answer's usage (cached tokens included) were both learned.
    expect(memory.manager.calibration().observations).toBe(2);
    expect(memory.manager.calibration().ratio).toBeGreaterThanOrEqual(1.6);

    // The next turns go through at the first attempt.
    messages = state.messages;
    for (let turn = 0; turn < 3; turn++) {
      const next = await agent.invoke(
        { messages: [...messages, new HumanMessage(`And ${words(turn, 120)}?`)] },
        config,
      );
      messages = next.messages;
    }
    expect(api.requests.filter((request) => !request.accepted)).toHaveLength(1);
  });

  it("fails the run with ctxmem's ContextOverflowError when no smaller request fits", async () => {
    const api = anthropicApi({ factor: 40 });
    const memory = contextMemoryMiddleware({
      model: api.model,
      contextWindow: WINDOW,
      summarizer: createExtractiveSummarizer({ counter }),
    });
    const agent = createAgent({ model: api.model, tools: [], middleware: [memory] });
    const error = await agent
      // The newest message alone is more than the provider takes: no retry can fit it.
      .invoke({ messages: [...historyRounds(4), new HumanMessage(`Well? ${words(3, 400)}`)] })
      .catch((caught: unknown) => caught);
    // LangChain wraps a middleware's error in its MiddlewareError, with ours as the cause.
    const overflow = (error as { cause?: unknown }).cause;
    expect(ContextOverflowError.isInstance(overflow)).toBe(true);
    expect((overflow as ContextOverflowError).providerTokens).toBe(api.requests[0]!.providerTokens);
    expect(BudgetExceededError.isInstance((overflow as ContextOverflowError).cause)).toBe(true);
    // Nothing smaller could be sent: one request, no loop.
    expect(api.requests).toHaveLength(1);
  });
});

describe('ContextChatMemory.callModel recovers from a "too long" rejection', () => {
  it('loads the variables again, smaller, and runs the call once more', async () => {
    const api = anthropicApi();
    const events: CtxmemEvent[] = [];
    const memory = new ContextChatMemory({
      model: api.model,
      contextWindow: WINDOW,
      returnMessages: true,
      summarizer: createExtractiveSummarizer({ counter }),
      chatHistory: new InMemoryChatMessageHistory(historyRounds(ROUNDS)),
      scope: { sessionId: 'memory' },
      onEvent: (event) => events.push(event),
    });
    const input = 'What did we settle on?';
    const seen: number[] = [];
    const answer = await memory.callModel({ input }, async (variables) => {
      const prompt = variables.history as BaseMessage[];
      seen.push(prompt.length);
      return api.model.invoke([...prompt, new HumanMessage(input)]);
    });
    expect(answer.text).toBe('Done.');
    expect(api.requests.map((request) => request.accepted)).toEqual([false, true]);
    expect(seen[1]).toBeLessThan(seen[0]!);
    expect(events.some((event) => event.type === 'context-overflow')).toBe(true);
    await memory.saveContext({ input }, { output: answer });
    expect(await memory.chatHistory.getMessages()).toHaveLength(2 * ROUNDS + 2);
  });
});

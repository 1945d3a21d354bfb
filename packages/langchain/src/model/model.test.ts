import { InvalidArgumentError } from '@ctxmem/core';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { RunnableBinding } from '@langchain/core/runnables';
import { ChatOpenAI } from '@langchain/openai';
import { describe, expect, it } from 'vitest';
import { ScriptedChatModel } from '../langchain.test-support.js';
import {
  chatModelComplete,
  chatModelId,
  chatModelMaxOutputTokens,
  chatModelWindow,
  createContext,
  NO_STREAM_TAG,
} from './index.js';

describe('chatModelComplete', () => {
  it('sends the system prompt and the request, tagged so LangGraph does not stream it', async () => {
    const seen: Array<{ messages: BaseMessage[]; options: unknown }> = [];
    const model = {
      async invoke(messages: BaseMessage[], options?: unknown) {
        seen.push({ messages, options });
        return new AIMessage({
          content: [
            { type: 'reasoning', reasoning: 'hidden' },
            { type: 'text', text: '{"summary":' },
            { type: 'text', text: '{}}' },
          ],
        });
      },
    };
    const controller = new AbortController();
    const answer = await chatModelComplete(model)({
      system: 'Summarize.',
      prompt: 'The messages.',
      abortSignal: controller.signal,
    });
    expect(answer).toEqual({ text: '{"summary":{}}' });
    expect(seen[0]!.messages.map((message) => [message.type, message.content])).toEqual([
      ['system', 'Summarize.'],
      ['human', 'The messages.'],
    ]);
    expect(seen[0]!.options).toMatchObject({
      tags: [NO_STREAM_TAG, 'ctxmem'],
      signal: controller.signal,
    });
  });

  it('reports the model id and the provider’s token usage, for telemetry', async () => {
    const model = {
      model: 'gpt-4o-mini',
      async invoke() {
        return new AIMessage({
          content: 'summary',
          response_metadata: { finish_reason: 'stop' },
          usage_metadata: { input_tokens: 120, output_tokens: 30, total_tokens: 150 },
        });
      },
    };
    expect(await chatModelComplete(model)({ prompt: 'x' })).toEqual({
      text: 'summary',
      finishReason: 'stop',
      model: 'gpt-4o-mini',
      usage: { inputTokens: 120, outputTokens: 30 },
    });
  });

  it('stops before calling an aborted model and rejects what is not a chat model', async () => {
    const model = new ScriptedChatModel(() => 'never');
    const controller = new AbortController();
    controller.abort(new Error('cancelled'));
    await expect(
      chatModelComplete(model)({ prompt: 'x', abortSignal: controller.signal }),
    ).rejects.toThrow('cancelled');
    expect(model.calls).toHaveLength(0);
    expect(() => chatModelComplete({} as never)).toThrow(InvalidArgumentError);
  });

  it('reads the model id and window of a chat model', () => {
    expect(chatModelId(new ScriptedChatModel(() => 'x', { model: 'gpt-4o-mini' }))).toBe(
      'gpt-4o-mini',
    );
    expect(chatModelId({ modelName: 'claude-3-5-sonnet' })).toBe('claude-3-5-sonnet');
    expect(chatModelId({})).toBeUndefined();
    expect(chatModelWindow({ profile: { maxInputTokens: 200_000 } })).toBe(200_000);
    expect(chatModelWindow({ profile: {} })).toBeUndefined();
    expect(chatModelMaxOutputTokens({ maxTokens: 512 })).toBe(512);
    expect(chatModelMaxOutputTokens({ maxOutputTokens: 256 })).toBe(256);
    expect(chatModelMaxOutputTokens({ kwargs: { max_tokens: 128 } })).toBe(128);
    expect(chatModelMaxOutputTokens({ bound: { maxTokens: 64 } })).toBe(64);
    expect(chatModelMaxOutputTokens({ maxTokens: -1 })).toBeUndefined();
  });
});

describe('chatModelMaxOutputTokens', () => {
  const openai = (fields: ConstructorParameters<typeof ChatOpenAI>[0] = {}) =>
    new ChatOpenAI({ model: 'gpt-4o-mini', apiKey: 'test-key', ...fields });

  it('reads the limit a ChatOpenAI sends: maxTokens, or maxCompletionTokens for reasoning models', () => {
    const limited = openai({ maxTokens: 500 });
    expect(chatModelMaxOutputTokens(limited)).toBe(500);
    expect((limited.invocationParams({}) as { max_tokens?: number }).max_tokens).toBe(500);
    const reasoning = openai({ model: 'o3-mini', maxCompletionTokens: 700 });
    expect(chatModelMaxOutputTokens(reasoning)).toBe(700);
    expect(
      (reasoning.invocationParams({}) as { max_completion_tokens?: number }).max_completion_tokens,
    ).toBe(700);
    // No limit set: nothing to reserve here (the manager's reserve applies).
    expect(chatModelMaxOutputTokens(openai())).toBeUndefined();
  });

  it('follows bindings and bound call options, and takes the largest limit', () => {
    const limited = openai({ maxTokens: 500 });
    // ChatOpenAI's withConfig and bindTools return a new ChatOpenAI with the options as defaults.
    expect(chatModelMaxOutputTokens(limited.withConfig({ max_tokens: 900 } as never))).toBe(900);
    const withTools = limited.bindTools([
      { type: 'function', function: { name: 'noop', parameters: { type: 'object' } } },
    ]);
    expect(chatModelMaxOutputTokens(withTools)).toBe(500);
    // A RunnableBinding around a model (what `.withConfig` gives for most runnables).
    const binding = new RunnableBinding({
      bound: limited,
      kwargs: {},
      config: { max_tokens: 1_200 } as never,
    });
    expect(chatModelMaxOutputTokens(binding)).toBe(1_200);
    expect(chatModelMaxOutputTokens(openai({ modelKwargs: { max_completion_tokens: 300 } }))).toBe(
      300,
    );
    expect(chatModelMaxOutputTokens({ invocationKwargs: { max_tokens: 4_096 } })).toBe(4_096);
    // The call's own options (an agent's `modelSettings`) count too.
    expect(chatModelMaxOutputTokens(limited, { max_tokens: 2_000 })).toBe(2_000);
    expect(chatModelMaxOutputTokens(openai(), { maxOutputTokens: 64 })).toBe(64);
    // A binding cycle ends the walk.
    const cycle: Record<string, unknown> = { maxTokens: 10 };
    cycle.bound = { bound: cycle };
    expect(chatModelMaxOutputTokens(cycle)).toBe(10);
  });
});

describe('createContext', () => {
  it('takes the window and tokenizer from a chat model with a known id', () => {
    const context = createContext(
      { model: new ScriptedChatModel(() => 'x', { model: 'gpt-4o-mini' }) },
      { recordHistory: false, injectMemories: false },
    );
    expect(context.manager.budget.contextWindow).toBe(128_000);
    expect(context.counter.name).toContain('o200k');
    expect(context.stores.offload).toBe(context.manager.offloadStore);
    expect(context.search).toBeUndefined();
  });

  it('rejects options it cannot honour with typed errors', () => {
    expect(() =>
      createContext(
        { model: 42 as never, contextWindow: 1_000 },
        { recordHistory: false, injectMemories: false },
      ),
    ).toThrow(InvalidArgumentError);
    expect(() =>
      createContext(
        { summarizerModel: {} as never, contextWindow: 1_000 },
        { recordHistory: false, injectMemories: false },
      ),
    ).toThrow(InvalidArgumentError);
    expect(() =>
      createContext(
        { flush: true, contextWindow: 8_000 },
        { recordHistory: false, injectMemories: false },
      ),
    ).toThrow(/flush needs a chat model/);
    expect(() =>
      createContext({ model: 'no-such-model' }, { recordHistory: false, injectMemories: false }),
    ).toThrow(/contextWindow/);
  });
});

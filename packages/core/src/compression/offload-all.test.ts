import { describe, expect, it } from 'vitest';
import type { Message } from '../contracts/index.js';
import { offloadAllStrategy } from './offload-large-messages.js';
import { createTestContext } from './test-helpers.js';
import { assistant, calls, deepFreeze, filler, results, system, user } from './test-messages.js';

const big = (seed: string) => filler(6_000, seed);

describe('offload-all strategy', () => {
  it('offloads every large message before the newest user message, recent ones included', async () => {
    const input = deepFreeze([
      system(big('rules')),
      user(big('paste1')),
      assistant(big('essay')),
      user(big('paste2')),
      assistant('short'),
      user(big('newest')),
      calls({ id: 'c1' }),
      results({ id: 'c1', output: big('current') }),
    ]);
    const context = createTestContext();
    const { state, report } = await offloadAllStrategy.apply({ messages: input }, context);
    expect(report).toMatchObject({ strategy: 'offload-all', applied: true, messagesAffected: 3 });
    expect(state.messages.map((message) => message.ctxmem?.kind)).toEqual([
      undefined,
      'offload-preview',
      'offload-preview',
      'offload-preview',
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    // The newest user message and the current round are not this strategy's business.
    expect(state.messages.slice(5)).toEqual(input.slice(5));
    expect(state.messages[0]).toBe(input[0]);
    for (const id of report.offloadIds ?? []) {
      const record = await context.offloadStore.get(context.scope, id);
      expect(input).toContainEqual(record.message);
    }
  });

  it('ignores messages at or below largePayloadChars', async () => {
    const input: Message[] = deepFreeze([
      user(filler(5_120)),
      assistant(filler(5_121)),
      user('newest'),
    ]);
    const { state } = await offloadAllStrategy.apply({ messages: input }, createTestContext());
    expect(state.messages[0]).toBe(input[0]);
    expect(state.messages[1]!.ctxmem?.kind).toBe('offload-preview');
  });

  it('returns the input state untouched when nothing is large', async () => {
    const input = deepFreeze([user('a'), assistant('b'), user('c')]);
    const state = { messages: input };
    const result = await offloadAllStrategy.apply(state, createTestContext());
    expect(result.state).toBe(state);
    expect(result.report.applied).toBe(false);
  });

  it('gives the same id and the same preview when the same message is offloaded twice', async () => {
    const input = deepFreeze([user(big('same')), assistant('ok'), user('newest')]);
    const context = createTestContext();
    const first = await offloadAllStrategy.apply({ messages: input }, context);
    const second = await offloadAllStrategy.apply({ messages: input }, context);
    expect(second.state.messages).toEqual(first.state.messages);
  });
});

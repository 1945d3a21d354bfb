import { describe, expect, it } from 'vitest';
import type { CtxmemEvent, Message } from '../contracts/index.js';
import { BudgetExceededError, ContextOverflowError } from '../errors/index.js';
import { createInMemoryHistoryStore } from '../history/index.js';
import { OVERFLOW_RETRY_SHARE } from '../provider/index.js';
import { fillerText } from '../test/filler-text.js';
import type { ContextManagerOptions, PrepareResult } from './context-manager-types.js';
import { createContextManager } from './index.js';

const WINDOW = 16_000;
const MODEL = 'claude-sonnet-4-5';
/**
 * Rounds (about 357 counted tokens each) that fit ctxmem's budget uncompacted at ratio 1 (under
 * the 12,800-token trigger) but not a provider counting 1.3 times as much with a 2,000-token
 * output reserve in a 16,000-token window.
 */
const OVER_AT_1_3 = 33;

function conversation(rounds: number): Message[] {
  const messages: Message[] = [{ role: 'system', content: 'You are a careful research agent.' }];
  for (let turn = 1; turn <= rounds; turn++) {
    messages.push(
      { role: 'user', content: `Turn ${turn}: ${fillerText(turn, 60)}?` },
      { role: 'assistant', content: fillerText(turn + 1_000, 220) },
    );
  }
  messages.push({ role: 'user', content: `Final question: ${fillerText(9_999, 20)}?` });
  return messages;
}

/** Anthropic's 400 body (anthropics/claude-code#408 and the report). */
function anthropicOverflow(providerTokens: number, limit: number) {
  const message = `prompt is too long: ${providerTokens} tokens > ${limit} maximum`;
  return Object.assign(new Error(message), {
    statusCode: 400,
    responseBody: JSON.stringify({
      type: 'error',
      error: { type: 'invalid_request_error', message },
    }),
  });
}

/**
 * A provider that counts `factor` times what ctxmem counts and rejects what does not fit its
 * window (with its numbers, or like the OpenAI Responses API without them).
 */
function provider({ factor = 1.3, limit = WINDOW, numbers = true } = {}) {
  const sent: PrepareResult[] = [];
  return {
    sent,
    async send(prepared: PrepareResult) {
      sent.push(prepared);
      const counted = Math.ceil(prepared.requestTokens * factor);
      if (counted + prepared.budget.reserveTokens > limit) {
        if (numbers) throw anthropicOverflow(counted, limit);
        throw Object.assign(new Error('Your input exceeds the context window of this model.'), {
          statusCode: 400,
          data: { error: { code: 'context_length_exceeded' } },
        });
      }
      return { text: 'ok', usage: { inputTokens: counted } };
    },
  };
}

function manager(options: Partial<ContextManagerOptions> = {}) {
  const events: CtxmemEvent[] = [];
  const instance = createContextManager({
    model: MODEL,
    contextWindow: WINDOW,
    onEvent: (event) => events.push(event),
    ...options,
  });
  return { manager: instance, events };
}

const usage = (result: { usage: { inputTokens: number } }) => result.usage;

describe('ContextManager.callModel', () => {
  it('budgets a model without a public tokenizer at 1.2 before anything is reported', async () => {
    expect(manager().manager.budget.countRatio).toBe(1.2);
    expect(manager({ model: 'gpt-4o' }).manager.budget.countRatio).toBe(1);
    expect(manager({ calibration: false }).manager.budget.countRatio).toBe(1);
    expect(manager({ calibration: { prior: 1.5 } }).manager.budget.countRatio).toBe(1.5);
  });

  it("learns the provider's count from usage, records it, and budgets with it", async () => {
    const historyStore = createInMemoryHistoryStore();
    const { manager: context } = manager({ historyStore });
    const fake = provider({ factor: 1.3 });
    const scope = { sessionId: 'a' };
    await context.callModel({
      messages: conversation(4),
      options: { scope },
      send: fake.send,
      usage,
    });
    const [first] = fake.sent;
    expect(context.calibration()).toEqual({ ratio: 1.33, observations: 1 });
    // The record says what the budget used and what the provider reported.
    const calls = await storedCalls(context, historyStore, scope, conversation(4));
    expect(calls.at(-2)?.calibration).toEqual({
      ratio: 1.2,
      observations: 0,
      providerTokens: Math.ceil(first!.requestTokens * 1.3),
    });
    // The next call's budget uses the learned ratio.
    await context.callModel({
      messages: conversation(5),
      options: { scope },
      send: fake.send,
      usage,
    });
    expect(fake.sent[1]!.budget.countRatio).toBe(1.33);
    expect(calls.at(-1)?.calibration?.ratio).toBe(1.33);
  });

  it('shares what it learned with every session of the manager', async () => {
    const { manager: context } = manager();
    const fake = provider({ factor: 1.5 });
    await context.callModel({
      messages: conversation(4),
      options: { scope: { sessionId: 'a' } },
      send: fake.send,
      usage,
    });
    const other = await context.prepare(conversation(2), { scope: { sessionId: 'b' } });
    expect(other.budget.countRatio).toBe(1.53);
  });

  it('retries once, smaller, when the provider rejects the request with its numbers', async () => {
    const historyStore = createInMemoryHistoryStore();
    const { manager: context, events } = manager({
      historyStore,
      calibration: { prior: 1, learn: false },
    });
    const fake = provider({ factor: 1.3 });
    const scope = { sessionId: 'retry' };
    const result = await context.callModel({
      messages: conversation(OVER_AT_1_3),
      options: { scope },
      send: fake.send,
      usage,
    });
    expect(result.text).toBe('ok');
    expect(fake.sent).toHaveLength(2);
    const [rejected, retry] = fake.sent as [PrepareResult, PrepareResult];
    expect(retry.requestTokens).toBeLessThan(rejected.requestTokens);
    expect(Math.ceil(retry.requestTokens * 1.3) + retry.budget.reserveTokens).toBeLessThanOrEqual(
      WINDOW,
    );
    expect(retry.budget.countRatio).toBeGreaterThan(1.3);
    expect(events.filter((event) => event.type === 'context-overflow')).toEqual([
      {
        type: 'context-overflow',
        scope,
        outcome: 'retrying',
        countedTokens: rejected.requestTokens,
        providerTokens: Math.ceil(rejected.requestTokens * 1.3),
        limitTokens: WINDOW,
        ratio: expect.any(Number),
      },
    ]);
    // The retry compacted, so its record was written with the state.
    const calls = (await historyStore.getState(scope))?.calls ?? [];
    expect(calls.at(-1)?.overflow).toEqual({
      countedTokens: rejected.requestTokens,
      providerTokens: Math.ceil(rejected.requestTokens * 1.3),
      limitTokens: WINDOW,
      outcome: 'retried',
    });
  });

  it('without numbers, retries with a smaller share of the rejected messages', async () => {
    const { manager: context } = manager({ calibration: { prior: 1, learn: false } });
    const fake = provider({ factor: 1.3, numbers: false });
    await context.callModel({
      messages: conversation(OVER_AT_1_3),
      options: { scope: { sessionId: 'share' } },
      send: fake.send,
    });
    const [rejected, retry] = fake.sent as [PrepareResult, PrepareResult];
    expect(retry.tokens).toBeLessThanOrEqual(Math.floor(OVERFLOW_RETRY_SHARE * rejected.tokens));
  });

  it('learns from the count in an overflow error, so the next call is not rejected', async () => {
    const { manager: context } = manager();
    const fake = provider({ factor: 1.45 });
    const scope = { sessionId: 'learn' };
    // 29 rounds fit the prior's budget (ratio 1.2) uncompacted, not a provider counting 1.45.
    await context.callModel({ messages: conversation(29), options: { scope }, send: fake.send });
    expect(fake.sent).toHaveLength(2);
    const sentBefore = fake.sent.length;
    await context.callModel({ messages: conversation(30), options: { scope }, send: fake.send });
    expect(fake.sent.length - sentBefore).toBe(1);
    expect(context.calibration().ratio).toBeGreaterThanOrEqual(1.45);
  });

  it('throws ContextOverflowError with both counts when the retry is rejected too, never a loop', async () => {
    const historyStore = createInMemoryHistoryStore();
    const { manager: context, events } = manager({ historyStore });
    let sends = 0;
    const send = async (prepared: PrepareResult) => {
      sends++;
      throw anthropicOverflow(Math.ceil(prepared.requestTokens * 3), WINDOW);
    };
    const scope = { sessionId: 'twice' };
    const error = await context
      .callModel({ messages: conversation(OVER_AT_1_3), options: { scope }, send })
      .catch((caught: unknown) => caught);
    expect(sends).toBe(2);
    expect(ContextOverflowError.isInstance(error)).toBe(true);
    const overflow = error as ContextOverflowError;
    expect(overflow.attempts).toHaveLength(2);
    const [first, second] = overflow.attempts;
    expect(first?.providerTokens).toBe(Math.ceil(first!.countedTokens! * 3));
    expect(second?.countedTokens).toBeLessThan(first!.countedTokens!);
    expect(overflow.countedTokens).toBe(second?.countedTokens);
    expect(overflow.providerTokens).toBe(second?.providerTokens);
    expect(overflow.limitTokens).toBe(WINDOW);
    expect(overflow.message).toMatch(/rejected the request as too long twice/);
    expect(
      events.filter((event) => event.type === 'context-overflow').map((event) => event.outcome),
    ).toEqual(['retrying', 'rejected-again']);
    const calls = await storedCalls(context, historyStore, scope, conversation(OVER_AT_1_3));
    expect(calls.at(-2)?.overflow?.outcome).toBe('rejected-again');
  });

  it('fails with ContextOverflowError, sending nothing more, when no smaller request can fit', async () => {
    const { manager: context, events } = manager();
    let sends = 0;
    const huge: Message[] = [
      ...conversation(2),
      { role: 'user', content: `Read this: ${fillerText(3, 3_000)}` },
    ];
    const error = await context
      .callModel({
        messages: huge,
        send: async (prepared) => {
          sends++;
          // A provider counting 6 times as much: the newest message alone is over its window.
          throw anthropicOverflow(Math.ceil(prepared.requestTokens * 6), WINDOW);
        },
      })
      .catch((caught: unknown) => caught);
    expect(sends).toBe(1);
    expect(ContextOverflowError.isInstance(error)).toBe(true);
    expect(BudgetExceededError.isInstance((error as ContextOverflowError).cause)).toBe(true);
    expect((error as ContextOverflowError).attempts).toHaveLength(1);
    expect(
      events.filter((event) => event.type === 'context-overflow').map((event) => event.outcome),
    ).toEqual(['retrying', 'cannot-fit']);
  });

  it('leaves other failures alone: a rate limit is thrown as it is, without a retry', async () => {
    const { manager: context } = manager();
    const rateLimit = Object.assign(new Error('Rate limit reached'), { statusCode: 429 });
    let calls = 0;
    const error = await context
      .callModel({
        messages: conversation(3),
        send: async () => {
          calls++;
          throw rateLimit;
        },
      })
      .catch((caught: unknown) => caught);
    expect(error).toBe(rateLimit);
    expect(calls).toBe(1);
  });

  it('does not retry once the abort signal has fired', async () => {
    const { manager: context, events } = manager();
    const controller = new AbortController();
    let calls = 0;
    const rejection = anthropicOverflow(20_000, WINDOW);
    const error = await context
      .callModel({
        messages: conversation(3),
        options: { abortSignal: controller.signal },
        send: async () => {
          calls++;
          controller.abort();
          throw rejection;
        },
      })
      .catch((caught: unknown) => caught);
    expect(error).toBe(rejection);
    expect(calls).toBe(1);
    expect(events.some((event) => event.type === 'context-overflow')).toBe(false);
  });

  it('uses a first preparation the caller made, and ignores usage of results it did not prepare', async () => {
    const { manager: context } = manager();
    const prepared = await context.prepare(conversation(3));
    const fake = provider();
    await context.callModel({ messages: conversation(3), prepared, send: fake.send, usage });
    expect(fake.sent[0]).toBe(prepared);
    const before = context.calibration();
    context.observeUsage({ ...prepared }, { inputTokens: 50_000 });
    expect(context.calibration()).toEqual(before);
  });

  it('keeps what it learned across a restart: the ratio is written with the working state', async () => {
    const historyStore = createInMemoryHistoryStore();
    const first = manager({ historyStore }).manager;
    const fake = provider({ factor: 1.4 });
    const scope = { sessionId: 'restart' };
    // Enough turns that a compaction writes the working state after the reports.
    for (let rounds = 4; rounds <= 36; rounds += 8) {
      await first.callModel({
        messages: conversation(rounds),
        options: { scope },
        send: fake.send,
        usage,
      });
    }
    const learned = first.calibration();
    expect(learned.observations).toBeGreaterThan(0);
    expect((await historyStore.getState(scope))?.calibration?.observations.length).toBeGreaterThan(
      0,
    );

    const restarted = manager({ historyStore }).manager;
    expect(restarted.calibration().observations).toBe(0);
    const prepared = await restarted.prepare(conversation(36), { scope });
    expect(restarted.calibration().observations).toBeGreaterThan(0);
    expect(prepared.budget.countRatio).toBeGreaterThanOrEqual(1.4);
    // Another model's manager on the same store does not adopt it.
    const other = manager({ historyStore, model: 'gemini-2.5-pro' }).manager;
    await other.prepare(conversation(36), { scope });
    expect(other.calibration()).toEqual({ ratio: 1.2, observations: 0 });
  });
});

/**
 * The session's call records as stored: they ride on the working-state writes compactions make,
 * so a forced compaction writes what the manager recorded so far.
 */
async function storedCalls(
  context: ReturnType<typeof createContextManager>,
  store: ReturnType<typeof createInMemoryHistoryStore>,
  scope: { sessionId: string },
  messages: Message[],
) {
  await context.prepare(messages, { scope, force: true });
  return (await store.getState(scope))?.calls ?? [];
}

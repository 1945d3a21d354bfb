import { describe, expect, it } from 'vitest';
import { messageText, toolOutputText, toolResultsOf } from '../messages/index.js';
import { currentRoundStrategy } from './current-round.js';
import { offloadAllStrategy } from './offload-large-messages.js';
import { createFakeCounter, createTestContext } from './test-helpers.js';
import { assistant, calls, deepFreeze, results, system, user } from './test-messages.js';
import { useTheRoom } from './use-the-room.js';

const counter = createFakeCounter();
/** Numbered lines, so that how much of a payload survives can be read off its last line. */
const rows = (count: number, label: string) =>
  Array.from({ length: count }, (_, row) => `${label} row ${row}: value ${row * 7}`).join('\n');
const cjkDocument = (count: number) =>
  Array.from(
    { length: count },
    (_, row) => `第${row}条：仓库${row % 9}的库存为${row * 3}件。`,
  ).join('');

describe('use the room: compress only as much as the budget requires', () => {
  it('grows an offloaded preview into the room left under target, never over it', async () => {
    const input = deepFreeze([
      system('You are a careful analyst.'),
      user(rows(3_000, 'sales')),
      assistant('I read the export.'),
      user('Which region sold most?'),
    ]);
    const targetTokens = 2_000;
    const context = createTestContext({ targetTokens });
    const { state, report } = await offloadAllStrategy.apply({ messages: input }, context);
    expect(report.applied).toBe(true);
    const tokens = counter.countMessages(state.messages);
    expect(tokens).toBeLessThanOrEqual(targetTokens);
    // Uses the room: the default 200-character preview would leave ~1,900 tokens unused.
    expect(tokens).toBeGreaterThan(targetTokens * 0.95);
    const preview = messageText(state.messages[1]!);
    expect(preview).toContain('sales row 200:');
    expect(preview).toContain(`reload_context("${report.offloadIds![0]}")`);
    expect(state.messages[1]!.ctxmem?.kind).toBe('offload-preview');
    const record = await context.offloadStore.get(context.scope, report.offloadIds![0]!);
    expect(record.message).toEqual(input[1]);
  });

  it('keeps as much of a CJK document as the room allows', async () => {
    const input = deepFreeze([
      system('你是助手。'),
      user(cjkDocument(800)),
      assistant('好的，我已阅读文档。'),
      user('仓库3有多少库存？'),
    ]);
    const targetTokens = 2_000;
    const { state } = await offloadAllStrategy.apply(
      { messages: input },
      createTestContext({ targetTokens }),
    );
    const tokens = counter.countMessages(state.messages);
    expect(tokens).toBeLessThanOrEqual(targetTokens);
    expect(tokens).toBeGreaterThan(targetTokens * 0.95);
  });

  it('grows a compressed current-round result to the target, keeping its pairing and reload note', async () => {
    const input = deepFreeze([
      system('You are an agent.'),
      user('List the shipped orders.'),
      calls({ id: 'c1', name: 'query' }),
      results({ id: 'c1', name: 'query', output: rows(6_000, 'order') }),
    ]);
    const targetTokens = 4_000;
    const { state, report } = await currentRoundStrategy.apply(
      { messages: input },
      createTestContext({ targetTokens }),
    );
    const tokens = counter.countMessages(state.messages);
    expect(tokens).toBeLessThanOrEqual(targetTokens);
    expect(tokens).toBeGreaterThan(targetTokens * 0.95);
    const [result] = toolResultsOf(state.messages[3]!);
    expect(result!.toolCallId).toBe('c1');
    const text = toolOutputText(result!.output);
    expect(text).toContain('order row 300:');
    // Head and tail: the newest rows survive too.
    expect(text).toContain('order row 5999:');
    expect(text).toContain(`reload_context("${report.offloadIds![0]}")`);
  });

  it('leaves the preview at its configured size when there is no room', async () => {
    const input = deepFreeze([user(rows(3_000, 'sales')), assistant('ok'), user('next')]);
    const { state } = await offloadAllStrategy.apply(
      { messages: input },
      createTestContext({ targetTokens: 1 }),
    );
    expect(messageText(state.messages[0]!)).not.toContain('sales row 20:');
  });

  it('counts as much for a 10 MB payload as for a 100 kB one: its cost follows what it keeps', () => {
    const grow = (payloadChars: number) => {
      const payload = 'x'.repeat(payloadChars);
      let counted = 0;
      const render = (previewChars: number) => {
        counted += previewChars;
        return user(payload.slice(0, previewChars));
      };
      const messages = [user('question'), render(200)];
      counted = 0;
      useTheRoom(messages, [{ index: 1, render, previewChars: 200, payloadChars }], 5_000, counter);
      return { counted, kept: messageText(messages[1]!).length };
    };
    const small = grow(100_000);
    const large = grow(10_000_000);
    // The largest preview that fits the room (the fake counter: 4 characters a token).
    expect(large.kept).toBe(small.kept);
    expect(counter.countMessage(user('x'.repeat(large.kept)))).toBeLessThanOrEqual(
      counter.countMessage(user('x'.repeat(200))) + 5_000,
    );
    expect(counter.countMessage(user('x'.repeat(large.kept + 1)))).toBeGreaterThan(
      counter.countMessage(user('x'.repeat(200))) + 5_000,
    );
    expect(large.counted).toBe(small.counted);
    expect(large.counted).toBeLessThan(2 * large.kept * Math.log2(large.kept));
  });
});

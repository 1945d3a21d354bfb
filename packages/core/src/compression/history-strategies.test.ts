import { describe, expect, it } from 'vitest';
import type { Message } from '../contracts/index.js';
import { checkToolPairing } from '../messages/index.js';
import { recentOnlyStrategy, summaryOnlyStrategy } from './history-strategies.js';
import { createScriptedSummarizer, createTestContext } from './test-helpers.js';
import { assistant, calls, deepFreeze, filler, results, system, user } from './test-messages.js';

function roundsOf(count: number): Message[] {
  const messages: Message[] = [];
  for (let index = 1; index <= count; index++) {
    messages.push(user(`q${index} ${filler(200)}`));
    messages.push(calls({ id: `c${index}` }));
    messages.push(results({ id: `c${index}`, output: filler(200) }));
    messages.push(assistant(`a${index}`));
  }
  return messages;
}

const input = deepFreeze([
  system('rules'),
  ...roundsOf(6),
  user('newest'),
  calls({ id: 'now' }),
  results({ id: 'now', output: 'current' }),
]);

describe('recent-only strategy', () => {
  it('keeps the last recentRounds rounds and the current round verbatim, the rest summarized', async () => {
    const summarizer = createScriptedSummarizer();
    const context = createTestContext({ summarizer });
    const { state, report } = await recentOnlyStrategy.apply({ messages: input }, context);
    expect(report).toMatchObject({ strategy: 'recent-only', applied: true, messagesAffected: 12 });
    expect(state.messages[0]).toBe(input[0]);
    expect(state.messages[1]!.ctxmem?.kind).toBe('summary');
    // Rounds 4, 5, 6 (12 messages) + the current round (3 messages).
    expect(state.messages.slice(2)).toEqual(input.slice(13));
    expect(summarizer.requests[0]!.messages).toEqual(input.slice(1, 13));
    expect(checkToolPairing(state.messages)).toEqual([]);
  });

  it('honours recentRounds and does nothing when there are not more rounds than that', async () => {
    const one = await recentOnlyStrategy.apply(
      { messages: input },
      createTestContext({ settings: { recentRounds: 1 } }),
    );
    expect(one.state.messages.slice(2)).toEqual(input.slice(21));
    const nothing = await recentOnlyStrategy.apply(
      { messages: input },
      createTestContext({ settings: { recentRounds: 6 } }),
    );
    expect(nothing.report.applied).toBe(false);
  });
});

describe('summary-only strategy', () => {
  it('keeps the summary and the current round only', async () => {
    const { state } = await summaryOnlyStrategy.apply({ messages: input }, createTestContext());
    expect(state.messages).toHaveLength(5);
    expect(state.messages[1]!.ctxmem?.kind).toBe('summary');
    expect(state.messages.slice(2)).toEqual(input.slice(-3));
  });

  it('leaves the state unchanged when the summarizer fails', async () => {
    const state = { messages: input };
    const result = await summaryOnlyStrategy.apply(
      state,
      createTestContext({ summarizer: createScriptedSummarizer({ fail: () => true }) }),
    );
    expect(result.state).toBe(state);
    expect(result.report.fallback?.from).toBe('scripted');
  });
});

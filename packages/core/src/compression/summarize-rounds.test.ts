import { describe, expect, it } from 'vitest';
import type {
  Message,
  StructuredSummary,
  SummarizeRequest,
  Summarizer,
} from '../contracts/index.js';
import { checkToolPairing } from '../messages/index.js';
import { emptySections, renderSummary } from '../summarize/index.js';
import { summarizeRoundsStrategy } from './summarize-rounds.js';
import { createScriptedSummarizer, createTestContext } from './test-helpers.js';
import { assistant, calls, deepFreeze, filler, results, system, user } from './test-messages.js';

/** `count` rounds of a user question and an assistant answer of about `chars` characters each. */
function rounds(count: number, chars = 400): Message[] {
  const messages: Message[] = [];
  for (let index = 1; index <= count; index++) {
    messages.push(user(`question ${index} ${filler(chars, `q${index}`)}`));
    messages.push(assistant(`answer ${index} ${filler(chars, `a${index}`)}`));
  }
  return messages;
}

function conversation(count = 8): Message[] {
  return deepFreeze([system('You are helpful.'), ...rounds(count), user('the newest question')]);
}

describe('summarize-rounds strategy', () => {
  it('evicts the oldest rounds into one summary right after the leading system messages', async () => {
    const input = conversation();
    const summarizer = createScriptedSummarizer();
    const context = createTestContext({ summarizer });
    const { state, report } = await summarizeRoundsStrategy.apply({ messages: input }, context);

    expect(report).toMatchObject({
      strategy: 'summarize-rounds',
      applied: true,
      summarizerCalls: 1,
    });
    expect(state.messages[0]).toBe(input[0]);
    const summary = state.messages[1]!;
    expect(summary).toMatchObject({ role: 'system', ctxmem: { kind: 'summary' } });
    expect(summary.content).toMatch(/^## Context Summary/);
    expect(summary.content).toBe(renderSummary(state.summary!));
    expect(summarizer.requests).toHaveLength(1);
    expect(summarizer.requests[0]!.messages[0]).toBe(input[1]);
    // The newest user message is untouched, and the kept history starts with a user message.
    expect(state.messages.at(-1)).toBe(input.at(-1));
    expect(state.messages[2]!.role).toBe('user');
  });

  it('keeps at least minMessagesToKeep messages before the current round when the budget allows', async () => {
    const input = conversation();
    const context = createTestContext({ settings: { minMessagesToKeep: 4 } });
    const { state } = await summarizeRoundsStrategy.apply({ messages: input }, context);
    // target 1 is unreachable: everything but the last 4 history messages is summarized.
    expect(state.messages.slice(2)).toEqual(input.slice(-5));
  });

  it('evicts only as much as needed to land at about the target', async () => {
    const input = conversation(10);
    const base = createTestContext();
    const total = base.counter.countMessages(input);
    const context = createTestContext({ targetTokens: Math.floor(total * 0.6) });
    const { state, report } = await summarizeRoundsStrategy.apply({ messages: input }, context);
    expect(report.tokensAfter).toBeLessThanOrEqual(context.targetTokens);
    // Not everything was evicted: more than the minimum of 4 history messages remain.
    expect(state.messages.length - 3).toBeGreaterThan(4);
    expect(report.tokensAfter).toBeGreaterThan(context.targetTokens * 0.5);
  });

  it('passes an existing summary as previousSummary: summaries roll, they never stack', async () => {
    const previous: StructuredSummary = {
      sections: { ...emptySections(), goal: ['Ship v1'], decisions: ['Use Postgres'] },
    };
    const input = deepFreeze([
      system('rules'),
      { role: 'system', content: renderSummary(previous), ctxmem: { kind: 'summary' } } as Message,
      ...rounds(6),
      user('newest'),
    ]);
    const summarizer = createScriptedSummarizer();
    const context = createTestContext({ summarizer });
    const { state } = await summarizeRoundsStrategy.apply({ messages: input }, context);
    expect(summarizer.requests[0]!.previousSummary).toEqual(previous);
    const summaries = state.messages.filter((message) => message.ctxmem?.kind === 'summary');
    expect(summaries).toHaveLength(1);
    expect(summaries[0]!.content).toContain('Use Postgres');
    expect(state.messages[1]).toBe(summaries[0]);
    // The old summary message itself is never summarized as a message.
    expect(summarizer.requests[0]!.messages.some((message) => message.ctxmem)).toBe(false);
  });

  it('prefers the structured summary in the state over the rendered message', async () => {
    const structured: StructuredSummary = {
      sections: { ...emptySections(), goal: ['from state'] },
    };
    const summarizer = createScriptedSummarizer();
    const context = createTestContext({ summarizer });
    await summarizeRoundsStrategy.apply({ messages: conversation(), summary: structured }, context);
    expect(summarizer.requests[0]!.previousSummary).toBe(structured);
  });

  it('cuts only where tool calls and results stay together', async () => {
    const input = deepFreeze([
      system('agent'),
      user(`task one ${filler(800)}`),
      calls({ id: 'a' }, { id: 'b' }),
      results({ id: 'a', output: filler(800) }),
      results({ id: 'b', output: filler(800) }),
      assistant('done one'),
      user(`task two ${filler(800)}`),
      calls({ id: 'c' }),
      results({ id: 'c', output: filler(800) }),
      assistant('done two'),
      user('newest'),
    ]);
    const context = createTestContext({ settings: { minMessagesToKeep: 3 } });
    const { state } = await summarizeRoundsStrategy.apply({ messages: input }, context);
    expect(checkToolPairing(state.messages)).toEqual([]);
    expect(state.messages.slice(2)).toEqual(input.slice(6));
  });

  it('keeps mid-conversation system messages verbatim in the system block', async () => {
    const note = system('Policy update: answer in French.');
    const input = deepFreeze([system('rules'), ...rounds(2), note, ...rounds(3), user('newest')]);
    const context = createTestContext({ settings: { minMessagesToKeep: 0 } });
    const { state } = await summarizeRoundsStrategy.apply({ messages: input }, context);
    expect(state.messages.slice(0, 3)).toEqual([
      input[0],
      note,
      expect.objectContaining({ ctxmem: { kind: 'summary' } }),
    ]);
    expect(state.messages.slice(3)).toEqual([input.at(-1)]);
  });

  it('carries cards and the fallback of the summarizer into the report', async () => {
    const summarizer = createScriptedSummarizer({
      cards: [{ content: 'The user prefers tabs.', type: 'preference' }],
      fallback: { from: 'model', reason: 'timeout' },
    });
    const context = createTestContext({ summarizer });
    const { report } = await summarizeRoundsStrategy.apply({ messages: conversation() }, context);
    expect(report.cards).toEqual([{ content: 'The user prefers tabs.', type: 'preference' }]);
    expect(report.fallback).toEqual({ from: 'model', reason: 'timeout' });
  });

  it('leaves the state unchanged and reports the failure when the summarizer throws', async () => {
    const input = conversation();
    const state = { messages: input };
    const context = createTestContext({
      summarizer: createScriptedSummarizer({ fail: () => true }),
    });
    const result = await summarizeRoundsStrategy.apply(state, context);
    expect(result.state).toBe(state);
    expect(result.report.applied).toBe(false);
    expect(result.report.fallback?.reason).toContain('scripted failure');
    expect(JSON.stringify(result.state.messages)).not.toContain('scripted failure');
  });

  it('trims a summary that overshoots summaryMaxTokens', async () => {
    const verbose = {
      name: 'verbose',
      async summarize() {
        const sections = emptySections();
        for (let index = 0; index < 200; index++)
          sections.keyFacts.push(`fact ${index} ${filler(80)}`);
        return { summary: { sections }, cards: [], calls: 1 };
      },
    };
    const context = createTestContext({ summarizer: verbose, settings: { summaryMaxTokens: 300 } });
    const { state } = await summarizeRoundsStrategy.apply({ messages: conversation() }, context);
    const summary = state.messages.find((message) => message.ctxmem?.kind === 'summary')!;
    expect(context.counter.countText(summary.content as string)).toBeLessThanOrEqual(300);
  });

  /** A summarizer that writes `bullets` bullets of about 20 tokens, whatever it is given. */
  const writing = (bullets: number, extra: Partial<Summarizer> = {}) => {
    const requests: SummarizeRequest[] = [];
    const summarizer: Summarizer = {
      name: 'writing',
      ...extra,
      async summarize(request) {
        requests.push(request);
        const sections = emptySections();
        for (let index = 0; index < bullets; index++)
          sections.keyFacts.push(filler(80, `f${index}`));
        return { summary: { sections }, cards: [], calls: 1 };
      },
    };
    return { summarizer, requests };
  };

  it("plans the cut with the summarizer's maxSummaryTokens, keeping the room for recent messages", async () => {
    const input = conversation(10);
    const total = createTestContext().counter.countMessages(input);
    const land = async (summarizer: Summarizer) => {
      const context = createTestContext({
        summarizer,
        targetTokens: Math.floor(total * 0.6),
        settings: { summaryMaxTokens: 1_000 },
      });
      const { state, report } = await summarizeRoundsStrategy.apply({ messages: input }, context);
      return {
        kept: state.messages.length,
        tokens: report.tokensAfter,
        target: context.targetTokens,
      };
    };
    // It writes about 60 tokens although the room is 1,000: planned with 1,000, the cut evicts
    // more than it needs and the prompt lands far under the target.
    const unplanned = await land(writing(3).summarizer);
    const planned = await land(writing(3, { maxSummaryTokens: 70 }).summarizer);
    expect(planned.kept).toBeGreaterThan(unplanned.kept);
    expect(planned.tokens).toBeLessThanOrEqual(planned.target);
    expect(planned.tokens).toBeGreaterThan(unplanned.tokens);
    expect(planned.tokens).toBeGreaterThan(planned.target * 0.85);
  });

  it('does not call a summarizer again after it fell back, while within the budget', async () => {
    const input = conversation(10);
    const total = createTestContext().counter.countMessages(input);
    const passes = async (fallback: boolean) => {
      // Planned for at most 10 tokens, it writes about 200: the prompt lands over the target.
      const { summarizer, requests } = writing(10, { maxSummaryTokens: 10 });
      const reported: Summarizer = fallback
        ? {
            ...summarizer,
            async summarize(request) {
              return {
                ...(await summarizer.summarize(request)),
                fallback: { from: 'model', reason: 'timeout' },
              };
            },
          }
        : summarizer;
      const context = createTestContext({
        summarizer: reported,
        targetTokens: Math.floor(total * 0.6),
        budgetTokens: total,
        settings: { summaryMaxTokens: 1_000 },
      });
      const { report } = await summarizeRoundsStrategy.apply({ messages: input }, context);
      return { calls: requests.length, tokens: report.tokensAfter, budget: context.budgetTokens };
    };
    // A summarizer that works folds in more rounds to reach the target.
    expect((await passes(false)).calls).toBeGreaterThan(1);
    // After a fallback (the model failed, maybe after a long timeout) one pass is enough.
    const fellBack = await passes(true);
    expect(fellBack.calls).toBe(1);
    expect(fellBack.tokens).toBeLessThanOrEqual(fellBack.budget);
  });

  it('does nothing when under target or when there is no history to evict', async () => {
    const input = conversation();
    const under = await summarizeRoundsStrategy.apply(
      { messages: input },
      createTestContext({ targetTokens: 1_000_000 }),
    );
    expect(under.report.applied).toBe(false);
    const onlyCurrent = deepFreeze([system('rules'), user('hello')]);
    const none = await summarizeRoundsStrategy.apply(
      { messages: onlyCurrent },
      createTestContext(),
    );
    expect(none.report.applied).toBe(false);
    expect(none.state.messages).toBe(onlyCurrent);
  });
});

import { describe, expect, it } from 'vitest';
import type {
  AssistantContentPart,
  CtxmemEvent,
  Message,
  StructuredSummary,
} from '../contracts/index.js';
import { BudgetExceededError, InvalidArgumentError, InvalidMessageError } from '../errors/index.js';
import { checkToolPairing } from '../messages/index.js';
import { emptySections, renderSummary } from '../summarize/index.js';
import { brokenHistories } from '../test/broken-histories.js';
import { checkCompactionInvariants } from '../test/invariants.js';
import { type CompactOptions, compact } from './compact.js';
import {
  createFakeCounter,
  createMapOffloadStore,
  createScriptedSummarizer,
} from './test-helpers.js';
import { assistant, calls, deepFreeze, filler, results, system, user } from './test-messages.js';

const counter = createFakeCounter();

function options(overrides: Partial<CompactOptions> = {}): CompactOptions {
  return {
    budgetTokens: 3_000,
    targetTokens: 2_000,
    counter,
    summarizer: createScriptedSummarizer(),
    offloadStore: createMapOffloadStore(),
    scope: { sessionId: 's1' },
    ...overrides,
  };
}

/** A long agent session: rounds with tool runs, a huge paste, and a current round with a big result. */
function session(): Message[] {
  const messages: Message[] = [system('You are a coding agent.')];
  for (let round = 1; round <= 6; round++) {
    messages.push(user(`task ${round}: ${filler(300, `task${round}`)}`));
    for (let step = 1; step <= 5; step++) {
      const id = `r${round}s${step}`;
      messages.push(calls({ id, input: { path: `src/${id}.ts` } }));
      messages.push(results({ id, output: filler(400, id) }));
    }
    messages.push(assistant(`finished task ${round}`));
  }
  messages.push(user(`here is a paste ${filler(8_000, 'paste')}`));
  messages.push(assistant('noted'));
  messages.push(user('Now fix the failing test.'));
  messages.push(calls({ id: 'now1', name: 'run_tests' }));
  messages.push(results({ id: 'now1', name: 'run_tests', output: filler(12_000, 'testlog') }));
  return deepFreeze(messages);
}

describe('compact at the edges', () => {
  const late = (): Message[] => [
    system('s'),
    user('go'),
    calls({ id: 'a' }),
    assistant('meanwhile'),
    results({ id: 'a', output: 'the late result' }),
    user('next'),
  ];

  it('repairs a late result, under target too, and says so', async () => {
    const events: CtxmemEvent[] = [];
    const result = await compact(late(), options({ onEvent: (event) => events.push(event) }));
    expect(checkToolPairing(result.messages)).toEqual([]);
    expect(result.messages.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
    ]);
    expect(events).toContainEqual({
      type: 'input-repaired',
      scope: { sessionId: 's1' },
      repairs: ['late-tool-result'],
    });
  });

  it('rejects what it may not repair, and malformed messages always, with the path', async () => {
    await expect(compact(late(), options({ repairInput: false }))).rejects.toSatisfy(
      (error: unknown) =>
        InvalidMessageError.isInstance(error) && error.path === 'messages[2].content[0]',
    );
    const malformed = [user('hi'), { role: 'user', content: [{ type: 'wat' }] }] as Message[];
    await expect(compact(malformed, options())).rejects.toSatisfy(
      (error: unknown) =>
        InvalidMessageError.isInstance(error) && error.path === 'messages[1].content[0]',
    );
  });

  // Protection: the entry check walks every value once and reads the array by index. Without it
  // a hole crashes the pipeline with "Cannot read properties of undefined (reading 'role')" and
  // a cycle is compacted into a prompt that cannot be serialized.
  it.each(brokenHistories().map((broken) => [broken.name, broken] as const))(
    'rejects %s with InvalidMessageError naming the path, repairing or not',
    async (_name, broken) => {
      for (const repairInput of [true, false]) {
        const error = await compact(broken.messages as Message[], options({ repairInput })).then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
        expect(InvalidMessageError.isInstance(error)).toBe(true);
        expect((error as InvalidMessageError).path).toBe(broken.path);
        expect((error as InvalidMessageError).message).toContain(broken.problem);
      }
    },
  );
});

describe('compact', () => {
  it('returns the same messages when already under target and not forced', async () => {
    const input = deepFreeze([system('s'), user('hello'), assistant('hi'), user('bye')]);
    const events: CtxmemEvent[] = [];
    const result = await compact(input, options({ onEvent: (event) => events.push(event) }));
    expect(result.messages).toEqual(input);
    result.messages.forEach((message, index) => {
      expect(message).toBe(input[index]);
    });
    expect(result.report.strategies).toEqual([]);
    expect(result.report.tokensAfter).toBe(result.report.tokensBefore);
    expect(events).toEqual([]);
  });

  it('brings a long session under budget with every invariant intact', async () => {
    const input = session();
    const store = createMapOffloadStore();
    const events: CtxmemEvent[] = [];
    const result = await compact(
      input,
      options({ offloadStore: store, onEvent: (event) => events.push(event) }),
    );
    expect(counter.countMessages(input)).toBeGreaterThan(3_000);
    expect(
      checkCompactionInvariants(input, result.messages, { budgetTokens: 3_000, counter }),
    ).toEqual([]);
    expect(result.report.tokensAfter).toBeLessThanOrEqual(3_000);
    expect(result.report.tokensAfter).toBe(counter.countMessages(result.messages));
    expect(result.report.trigger).toBe('budget');
    const applied = result.report.strategies.filter((report) => report.applied);
    expect(applied.length).toBeGreaterThan(0);
    expect(events.filter((event) => event.type === 'strategy')).toHaveLength(applied.length);
    expect(events.at(-1)).toEqual({
      type: 'compaction',
      scope: { sessionId: 's1' },
      report: result.report,
    });
    // A status line can say "compacting…" before the summarizer runs: the start comes first.
    expect(events[0]).toEqual({
      type: 'compaction-start',
      scope: { sessionId: 's1' },
      trigger: 'budget',
      tokensBefore: result.report.tokensBefore,
      budgetTokens: 3_000,
      targetTokens: 2_000,
    });
    expect(events.filter((event) => event.type === 'compaction-start')).toHaveLength(1);
    // Every offloaded original is retrievable byte-identically.
    const ids = result.report.strategies.flatMap((report) => report.offloadIds ?? []);
    expect(ids.length).toBeGreaterThan(0);
    for (const id of ids) {
      const record = await store.get({ sessionId: 's1' }, id);
      expect(record.id).toBe(id);
    }
  });

  it('runs the strategies in the progressive order and stops once under target', async () => {
    const result = await compact(session(), options());
    const names = result.report.strategies.map((report) => report.strategy);
    const order = [
      'tool-runs',
      'offload-keep-recent',
      'offload-all',
      'summarize-rounds',
      'current-round',
    ];
    const positions = names
      .filter((name) => order.includes(name))
      .map((name) => order.indexOf(name));
    expect(positions).toEqual([...positions].sort((first, second) => first - second));
    expect(names[0]).toBe('tool-runs');
  });

  it('throws BudgetExceededError only when the system messages and newest user message do not fit', async () => {
    const input = deepFreeze([
      system(filler(4_000)),
      user('old'),
      assistant('x'),
      user(filler(10_000)),
    ]);
    await expect(compact(input, options())).rejects.toSatisfy((error: unknown) => {
      if (!BudgetExceededError.isInstance(error)) return false;
      return error.budgetTokens === 3_000 && error.requiredTokens > 3_000;
    });
  });

  it('fits even when the summarizer fails, without any error text in the prompt', async () => {
    const input = session();
    const events: CtxmemEvent[] = [];
    const result = await compact(
      input,
      options({
        summarizer: createScriptedSummarizer({ fail: () => true }),
        onEvent: (event) => events.push(event),
      }),
    );
    expect(
      checkCompactionInvariants(input, result.messages, { budgetTokens: 3_000, counter }),
    ).toEqual([]);
    expect(JSON.stringify(result.messages)).not.toContain('scripted failure');
    expect(result.messages.some((message) => message.ctxmem?.kind === 'summary')).toBe(false);
    expect(events.some((event) => event.type === 'summarizer-fallback')).toBe(true);
  });

  it('keeps the summary in the leading system block and returns the structured summary', async () => {
    const result = await compact(session(), options());
    const index = result.messages.findIndex((message) => message.ctxmem?.kind === 'summary');
    expect(index).toBe(1);
    expect(result.summary).toBeDefined();
  });

  it('rolls a previous summary passed as an option', async () => {
    const previous: StructuredSummary = {
      sections: { ...emptySections(), goal: ['Original goal'] },
    };
    const summarizer = createScriptedSummarizer();
    const input = deepFreeze([
      system('rules'),
      { role: 'system', content: renderSummary(previous), ctxmem: { kind: 'summary' } } as Message,
      ...session().slice(1),
    ]);
    const result = await compact(input, options({ summarizer, previousSummary: previous }));
    expect(summarizer.requests[0]!.previousSummary).toBe(previous);
    expect(result.messages.filter((message) => message.ctxmem?.kind === 'summary')).toHaveLength(1);
    expect(result.summary?.sections.goal).toContain('Original goal');
  });

  it('collects the memory cards of all summarizer calls', async () => {
    const summarizer = createScriptedSummarizer({ cards: [{ content: 'Deadline is Friday.' }] });
    const result = await compact(session(), options({ summarizer }));
    expect(result.cards.length).toBeGreaterThan(0);
    expect(result.cards[0]).toEqual({ content: 'Deadline is Friday.' });
  });

  it('compacts a forced (manual) run under target but leaves the current round alone', async () => {
    const input = deepFreeze([
      system('rules'),
      ...Array.from({ length: 6 }, (_, index) => [
        user(`q${index}`),
        assistant(`a${index}`),
      ]).flat(),
      user('newest'),
      calls({ id: 'n' }),
      results({ id: 'n', output: filler(2_000) }),
    ]);
    const result = await compact(
      input,
      options({ budgetTokens: 100_000, targetTokens: 90_000, force: true }),
    );
    expect(result.report.trigger).toBe('manual');
    expect(result.messages[1]!.ctxmem?.kind).toBe('summary');
    // minMessagesToKeep (4) history messages kept, the current round untouched.
    expect(result.messages.slice(2)).toEqual(input.slice(-7));
  });

  it('treats the message-count trigger as forced', async () => {
    const input = deepFreeze([
      ...Array.from({ length: 6 }, (_, index) => [
        user(`q${index}`),
        assistant(`a${index}`),
      ]).flat(),
      user('newest'),
    ]);
    const result = await compact(input, options({ trigger: 'message-count' }));
    expect(result.messages.length).toBeLessThan(input.length);
    expect(result.report.trigger).toBe('message-count');
  });

  it('supports the recent-only and summary-only history modes', async () => {
    const input = session();
    const recent = await compact(
      input,
      options({ history: 'recent-only', budgetTokens: 8_000, targetTokens: 6_000 }),
    );
    expect(recent.report.strategies[0]!.strategy).toBe('recent-only');
    expect(
      checkCompactionInvariants(input, recent.messages, { budgetTokens: 8_000, counter }),
    ).toEqual([]);
    const only = await compact(input, options({ history: 'summary-only' }));
    expect(only.report.strategies[0]!.strategy).toBe('summary-only');
    // Summary + the current round (the newest user message and its tool step).
    expect(only.messages.map((message) => message.role)).toEqual([
      'system',
      'system',
      'user',
      'assistant',
      'tool',
    ]);
    expect(
      checkCompactionInvariants(input, only.messages, { budgetTokens: 3_000, counter }),
    ).toEqual([]);
  });

  it('never summarizes a memory injection and keeps it before the newest user message', async () => {
    const injection: Message = {
      role: 'user',
      content: '## Relevant Memories\n- [fact] "The user likes tea"',
      ctxmem: { kind: 'memory-injection' },
    };
    const input = deepFreeze([...session().slice(0, -3), injection, ...session().slice(-3)]);
    const summarizer = createScriptedSummarizer();
    const result = await compact(input, options({ summarizer }));
    expect(
      checkCompactionInvariants(input, result.messages, { budgetTokens: 3_000, counter }),
    ).toEqual([]);
    const summarized = summarizer.requests.flatMap((request) => request.messages);
    expect(summarized).not.toContain(injection);
    const newest = result.messages.indexOf(input.at(-3)!);
    expect(result.messages[newest - 1]).toBe(injection);
  });

  it('compacts a history without any user message', async () => {
    const input = deepFreeze([
      system('rules'),
      ...Array.from({ length: 30 }, (_, index) => assistant(`step ${index} ${filler(400)}`)),
    ]);
    const result = await compact(input, options({ budgetTokens: 1_000, targetTokens: 800 }));
    expect(
      checkCompactionInvariants(input, result.messages, { budgetTokens: 1_000, counter }),
    ).toEqual([]);
  });

  it('runs a custom strategy list', async () => {
    const calledWith: number[] = [];
    const result = await compact(
      session(),
      options({
        strategies: [
          {
            name: 'tool-runs',
            async apply(state, context) {
              calledWith.push(context.targetTokens);
              return {
                state,
                report: {
                  strategy: 'tool-runs',
                  applied: false,
                  tokensBefore: 0,
                  tokensAfter: 0,
                  messagesAffected: 0,
                  summarizerCalls: 0,
                  durationMs: 0,
                },
              };
            },
          },
        ],
      }),
    );
    expect(calledWith).toEqual([2_000]);
    // The budget guard still makes it fit.
    expect(result.report.tokensAfter).toBeLessThanOrEqual(3_000);
  });

  it('never lets a throwing event listener fail the compaction', async () => {
    const result = await compact(
      session(),
      options({
        onEvent: () => {
          throw new Error('listener bug');
        },
      }),
    );
    expect(result.report.tokensAfter).toBeLessThanOrEqual(3_000);
  });

  it('stops on abort', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(compact(session(), options({ abortSignal: controller.signal }))).rejects.toThrow(
      'stop',
    );
  });

  it.each<[string, Partial<CompactOptions>, string]>([
    ['a NaN budget', { budgetTokens: Number.NaN }, 'budgetTokens'],
    ['a zero budget', { budgetTokens: 0 }, 'budgetTokens'],
    ['a target above the budget', { targetTokens: 4_000 }, 'targetTokens'],
    ['a fractional target', { targetTokens: 10.5 }, 'targetTokens'],
    ['a bad setting', { settings: { minMessagesToKeep: -1 } }, 'settings.minMessagesToKeep'],
    ['an unknown setting', { settings: { minMessages: 1 } as never }, 'settings.minMessages'],
    ['an unknown history mode', { history: 'everything' as never }, 'history'],
    ['a missing counter', { counter: undefined as never }, 'counter'],
  ])('rejects %s', async (_, overrides, argument) => {
    await expect(compact(session(), options(overrides))).rejects.toSatisfy(
      (error: unknown) => InvalidArgumentError.isInstance(error) && error.argument === argument,
    );
  });
});

describe('compact with opaque parts', () => {
  const signed = (text: string, signature: string): AssistantContentPart => ({
    type: 'reasoning',
    text,
    providerOptions: { anthropic: { signature } },
  });
  const compaction: AssistantContentPart = {
    type: 'text',
    text: 'Summary of the first tasks: the port is 8080.',
    providerOptions: { anthropic: { type: 'compaction' } },
  };

  /** Six rounds; the provider compacted in round 2 (its answer starts with a compaction block). */
  function compactedSession(): Message[] {
    const messages: Message[] = [system('You are a coding agent.')];
    for (let round = 1; round <= 6; round++) {
      messages.push(user(`task ${round}: ${filler(300, `task${round}`)}`));
      for (let step = 1; step <= 3; step++) {
        const id = `r${round}s${step}`;
        messages.push(
          assistant([
            signed(filler(2_000, `think${id}`), `sig-${id}`),
            { type: 'tool-call', toolCallId: id, toolName: 'read_file', input: { path: id } },
          ]),
        );
        messages.push(results({ id, output: filler(1_500, id) }));
      }
      messages.push(
        assistant(round === 2 ? [compaction, { type: 'text', text: 'done 2' }] : `done ${round}`),
      );
    }
    messages.push(user('Now fix the failing test.'));
    messages.push(
      assistant([
        signed(filler(3_000, 'think-now-1'), 'sig-now-1'),
        { type: 'tool-call', toolCallId: 'now1', toolName: 'run_tests', input: {} },
      ]),
    );
    messages.push(results({ id: 'now1', name: 'run_tests', output: filler(6_000, 'log1') }));
    messages.push(
      assistant([
        signed(filler(3_000, 'think-now-2'), 'sig-now-2'),
        { type: 'tool-call', toolCallId: 'now2', toolName: 'run_tests', input: {} },
      ]),
    );
    messages.push(results({ id: 'now2', name: 'run_tests', output: filler(6_000, 'log2') }));
    return deepFreeze(messages);
  }

  it('never edits signed reasoning and keeps the round of the newest provider compaction', async () => {
    const messages = compactedSession();
    const total = counter.countMessages(messages);
    const budgetTokens = Math.floor(total * 0.8);
    // The target asks for more than the rounds before the compaction can give.
    const targetTokens = Math.floor(total * 0.3);
    const result = await compact(
      messages,
      options({ budgetTokens, targetTokens, settings: { minMessagesToKeep: 0 } }),
    );
    expect(checkCompactionInvariants(messages, result.messages, { budgetTokens, counter })).toEqual(
      [],
    );
    const json = JSON.stringify(result.messages.filter((message) => !message.ctxmem));
    expect(result.report.strategies.map((report) => report.strategy)).toContain('summarize-rounds');
    // The compaction's round is kept (its user message, the compaction itself); rounds before it went.
    expect(json).toContain('Summary of the first tasks');
    expect(json).toContain('task 2:');
    expect(json).not.toContain('task 1:');
    // The current round's reasoning is signed: kept whole, signature and all, in both steps.
    for (const id of ['now-1', 'now-2']) {
      expect(result.messages).toContainEqual(
        expect.objectContaining({
          content: expect.arrayContaining([signed(filler(3_000, `think-${id}`), `sig-${id}`)]),
        }),
      );
    }
  });

  it('lets the budget guard drop the compaction round rather than fail the call', async () => {
    const messages = compactedSession();
    const minimal = counter.countMessages([messages[0]!, ...messages.slice(-5)]);
    const budgetTokens = minimal + 200;
    const result = await compact(
      messages,
      options({
        budgetTokens,
        targetTokens: budgetTokens,
        summarizer: createScriptedSummarizer({ fail: () => true }),
      }),
    );
    expect(counter.countMessages(result.messages)).toBeLessThanOrEqual(budgetTokens);
    expect(JSON.stringify(result.messages)).not.toContain('Summary of the first tasks');
  });
});

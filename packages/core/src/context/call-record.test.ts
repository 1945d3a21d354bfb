import { describe, expect, it } from 'vitest';
import type {
  CallRecord,
  CompleteResult,
  HistoryStore,
  Message,
  SummarizerFailureKind,
} from '../contracts/index.js';
import { InvalidArgumentError } from '../errors/index.js';
import { createInMemoryHistoryStore } from '../history/index.js';
import { createInMemoryMemoryStore } from '../memory/index.js';
import { createMemorySearch } from '../retrieval/index.js';
import { createModelSummarizer } from '../summarize/index.js';
import { sharedConversation } from '../test/shared-conversation.js';
import { createScriptedComplete, type ScriptedStep } from '../test/summarizers.js';
import { createTokenCounter } from '../tokens/index.js';
import { appendCallRecord, reconstructCallRecords, windowPartOf } from './call-record.js';
import { createContextManager } from './index.js';

const counter = createTokenCounter();
const scope = { sessionId: 'recorded' };

/** A history store that counts its calls by method, to show recording adds no round trip. */
function countingStore(inner: HistoryStore = createInMemoryHistoryStore()) {
  const calls: Record<string, number> = {};
  const store = new Proxy(inner, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls[String(property)] = (calls[String(property)] ?? 0) + 1;
        return value.apply(target, args);
      };
    },
  });
  return { store, calls };
}

/** Prepares the conversation call by call (after each user message), like a host would. */
async function play(
  manager: ReturnType<typeof createContextManager>,
  conversation: readonly Message[],
  tools?: readonly unknown[],
) {
  const results = [];
  for (let end = 2; end <= conversation.length; end += 2) {
    results.push(
      await manager.prepare(conversation.slice(0, end), { scope, ...(tools ? { tools } : {}) }),
    );
  }
  return results;
}

/** A manager on an in-memory history store, played through a conversation that compacts. */
async function playRecorded() {
  const historyStore = createInMemoryHistoryStore();
  const manager = createContextManager({ contextWindow: 6_000, counter, historyStore });
  const conversation = sharedConversation(30);
  return { historyStore, manager, conversation, results: await play(manager, conversation) };
}

describe('call records', () => {
  it('stores one record per prepared call with the working state, and the compacting call itself', async () => {
    const { historyStore, results } = await playRecorded();
    const compacted = results.flatMap((result, index) => (result.compacted ? [index] : []));
    expect(compacted.length).toBeGreaterThanOrEqual(2);

    const state = await historyStore.getState(scope);
    const calls = state?.calls ?? [];
    // Written with the latest compaction: every call up to and including it.
    expect(calls).toHaveLength(compacted.at(-1)! + 1);
    calls.forEach((call, index) => {
      const result = results[index]!;
      expect(call.historyMessages).toBe(2 * (index + 1));
      expect(call.tokens).toBe(result.tokens);
      const { toolDefinitions, reserved, outputReserve, ...messageParts } = call.composition;
      // The message parts add up to the prompt, the rest to the request's fixed parts.
      expect(Object.values(messageParts).reduce((sum, tokens) => sum + tokens, 0)).toBe(
        result.tokens,
      );
      expect(toolDefinitions + reserved).toBe(result.budget.fixedTokens);
      expect(outputReserve).toBe(result.budget.reserveTokens);
      expect(call.budget.budgetTokens).toBe(result.budget.budgetTokens);
      expect(call.compaction !== undefined).toBe(result.compacted);
    });
    const last = calls.at(-1)!;
    expect(last.compaction).toMatchObject({ source: 'compacted' });
    expect(['threshold', 'reserve']).toContain(last.compaction?.trigger);
    expect(last.compaction?.summarizer).toBe('extractive');
    expect(last.compaction?.strategies.some((strategy) => strategy.applied)).toBe(true);
    expect(last.tokensBefore).toBeGreaterThan(last.tokens);
    expect(last.composition.summary).toBeGreaterThan(0);
    expect(Date.parse(last.at)).not.toBeNaN();
  });

  it('keeps the last `recordedCalls` and continues the stored record in a new process', async () => {
    const historyStore = createInMemoryHistoryStore();
    const conversation = sharedConversation(40);
    const first = createContextManager({
      contextWindow: 6_000,
      counter,
      historyStore,
      recordedCalls: 4,
    });
    await play(first, conversation.slice(0, 40));
    const before = (await historyStore.getState(scope))?.calls ?? [];
    expect(before).toHaveLength(4);

    // A restarted process reads the stored record and adds to it.
    const second = createContextManager({
      contextWindow: 6_000,
      counter,
      historyStore,
      recordedCalls: 4,
    });
    await play(second, conversation);
    const after = (await historyStore.getState(scope))?.calls ?? [];
    expect(after).toHaveLength(4);
    expect(after.map((call) => call.historyMessages)).toEqual(
      [...after.map((call) => call.historyMessages)].sort((left, right) => left - right),
    );
    expect(after.at(-1)!.historyMessages).toBeGreaterThan(before.at(-1)!.historyMessages);
  });

  it('costs no store call of its own', async () => {
    const conversation = sharedConversation(30);
    const recording = countingStore();
    const silent = countingStore();
    await play(
      createContextManager({ contextWindow: 6_000, counter, historyStore: recording.store }),
      conversation,
    );
    await play(
      createContextManager({
        contextWindow: 6_000,
        counter,
        historyStore: silent.store,
        recordedCalls: 0,
      }),
      conversation,
    );
    expect(recording.calls).toEqual(silent.calls);
    expect(recording.calls.setState).toBeGreaterThan(0);
    expect((await silent.store.getState(scope))?.calls).toBeUndefined();
  });

  it('records the tool definitions and the injected memories with their card ids and scores', async () => {
    const historyStore = createInMemoryHistoryStore();
    const memoryStore = createInMemoryMemoryStore();
    const [card] = await memoryStore.add({ sessionId: 'recorded' }, [
      { type: 'preference', content: 'The user prefers Python for scripting.' },
    ]);
    const manager = createContextManager({
      contextWindow: 6_000,
      counter,
      historyStore,
      memory: { search: createMemorySearch({ store: memoryStore }) },
    });
    const tools = [{ name: 'read_file', description: 'Reads a file', parameters: {} }];
    const conversation = sharedConversation(30);
    conversation.push({ role: 'user', content: 'Which language do I prefer for scripting?' });
    const results = await play(manager, conversation, tools);
    const calls = (await historyStore.getState(scope))?.calls ?? [];
    expect(calls.length).toBeGreaterThan(0);
    expect(calls[0]!.composition.toolDefinitions).toBeGreaterThan(0);
    expect(calls[0]!.composition.toolDefinitions).toBe(results[0]!.budget.fixedTokens);
    // The last call injected the card; it is recorded in memory until the next state write, and a
    // forced compaction writes it.
    expect(results.at(-1)!.injected).toBe(1);
    await manager.prepare(conversation, { scope, tools, force: true });
    const written = (await historyStore.getState(scope))?.calls ?? [];
    const asked = written.at(-2)!;
    expect(asked.memories).toEqual([{ id: card!.id, score: expect.any(Number) }]);
    expect(asked.memories[0]!.score).toBeGreaterThan(0);
    expect(asked.composition.memories).toBeGreaterThan(0);
    expect(written.at(-1)!.compaction).toMatchObject({ source: 'compacted', trigger: 'manual' });
  });

  it('rejects a negative or fractional recordedCalls', () => {
    for (const recordedCalls of [-1, 1.5, Number.NaN]) {
      expect(() => createContextManager({ contextWindow: 6_000, recordedCalls })).toThrow(
        InvalidArgumentError,
      );
    }
  });
});

/** An error class a provider SDK might throw, its message quoting what it was sent. */
class ProviderError extends Error {}

/** What a failing model answer leaves in the stored records: the kind, never the words. */
async function recordedFallbacks(step: ScriptedStep, options: { repeat?: boolean } = {}) {
  const historyStore = createInMemoryHistoryStore();
  const manager = createContextManager({
    contextWindow: 6_000,
    counter,
    historyStore,
    summarizer: createModelSummarizer({
      complete: createScriptedComplete([step], { repeatLast: true }),
      counter,
      name: 'model',
      // Short only for the model that never answers: on a loaded machine a scripted answer can
      // take longer than 50 ms, and its failure would be stored as a timeout.
      timeoutMs: step === 'hang' ? 50 : 10_000,
    }),
    // Off unless the test is about it, so every compaction calls the model.
    ...(options.repeat ? {} : { summarizerCircuitBreaker: false as const }),
  });
  await play(manager, sharedConversation(30));
  const calls = (await historyStore.getState(scope))?.calls ?? [];
  const fallbacks = calls.flatMap(
    (call) => call.compaction?.strategies.flatMap((strategy) => strategy.fallback ?? []) ?? [],
  );
  return { calls, fallbacks };
}

const SECRET = 'SECRET-4242';

describe('the reason a summarizer failed, in the stored record', () => {
  const cases: Array<[string, ScriptedStep, SummarizerFailureKind, string]> = [
    ['a model that does not answer in time', 'hang', 'timeout', 'CtxmemSummarizerError'],
    [
      'a refusal',
      `I'm sorry, I can't help with summarizing ${SECRET}.`,
      'refusal',
      'CtxmemSummarizerError',
    ],
    [
      'an answer cut off at the output limit',
      { text: `{"decisions": ["${SECRET}`, finishReason: 'length' } satisfies CompleteResult,
      'cut-off',
      'CtxmemSummarizerError',
    ],
    [
      'prose instead of a summary',
      `Here is what happened with ${SECRET} today.`,
      'unparseable',
      'CtxmemSummarizerError',
    ],
    ['an empty answer', '   ', 'empty', 'CtxmemSummarizerError'],
    [
      'an answer a content filter stopped',
      { text: SECRET, finishReason: 'content-filter' } satisfies CompleteResult,
      'content-filter',
      'CtxmemSummarizerError',
    ],
    [
      'a rate limit',
      Object.assign(new ProviderError(`slow down, ${SECRET}`), { status: 429 }),
      'rate-limited',
      'ProviderError',
    ],
    [
      "a provider's own error",
      new ProviderError(`401 for the key sk-${SECRET}`),
      'error',
      'ProviderError',
    ],
    [
      'an error whose name is text',
      Object.assign(new Error(SECRET), { name: `user said ${SECRET}` }),
      'error',
      'Error',
    ],
  ];

  it.each(cases)(
    'stores the kind of %s and its error class, not its words',
    async (_, step, kind, errorClass) => {
      const { calls, fallbacks } = await recordedFallbacks(step);
      expect(fallbacks.length).toBeGreaterThan(0);
      expect(fallbacks[0]).toEqual({ from: 'model', kind, errorClass });
      expect(JSON.stringify(calls)).not.toContain(SECRET);
    },
  );

  it('stores circuit-open once the breaker stops calling a failing model', async () => {
    const { fallbacks } = await recordedFallbacks(new ProviderError('down'), { repeat: true });
    const kinds = fallbacks.map((fallback) => fallback.kind);
    const opened = kinds.indexOf('circuit-open');
    // One compaction may summarize more than once: the breaker's three failures come first.
    expect(kinds[0]).toBe('error');
    expect(opened).toBeGreaterThan(0);
    expect(kinds.slice(opened).every((kind) => kind === 'circuit-open')).toBe(true);
    expect(fallbacks[opened]!.errorClass).toBe('CtxmemSummarizerError');
  });
});

describe('reconstructCallRecords', () => {
  it('rebuilds the calls after the latest stored compaction as the manager recorded them', async () => {
    const historyStore = createInMemoryHistoryStore();
    const manager = createContextManager({ contextWindow: 6_000, counter, historyStore });
    const conversation = sharedConversation(40);
    // Played until a call follows the latest compaction, whichever call the cadence compacts on.
    const results: Awaited<ReturnType<typeof manager.prepare>>[] = [];
    for (let end = 2; end <= conversation.length; end += 2) {
      const result = await manager.prepare(conversation.slice(0, end), { scope });
      results.push(result);
      if (!result.compacted && results.filter((call) => call.compacted).length >= 2) break;
    }
    const state = (await historyStore.getState(scope))!;
    const history = await historyStore.read(scope);
    const ends = results.map((_, index) => 2 * (index + 1));
    const rebuilt = reconstructCallRecords({ state, history, ends, counter });
    const stored = state.calls!.length;
    expect(rebuilt.length).toBeGreaterThan(0);
    expect(rebuilt).toHaveLength(results.length - stored);
    rebuilt.forEach((record, index) => {
      expect(record.tokens).toBe(results[stored + index]!.tokens);
      expect(record.at).toBe(history[record.historyMessages - 1]!.createdAt);
    });

    // A forced compaction writes the manager's own records of those calls: the same but the time.
    await manager.prepare(conversation.slice(0, 2 * results.length), { scope, force: true });
    const written = (await historyStore.getState(scope))!.calls!;
    const withoutTime = ({ at: _, ...record }: CallRecord) => record;
    expect(rebuilt.map(withoutTime)).toEqual(
      written.slice(stored, stored + rebuilt.length).map(withoutTime),
    );
  });

  it('rebuilds nothing without a recorded call, and skips calls the state does not reach', async () => {
    const history = await (async () => {
      const store = createInMemoryHistoryStore();
      await store.append(scope, sharedConversation(4));
      return store.read(scope);
    })();
    const state = { messages: [], summarizedCount: 0 };
    expect(reconstructCallRecords({ state, history, ends: [2, 4], counter })).toEqual([]);
    const record: CallRecord = {
      at: history[1]!.createdAt,
      historyMessages: 2,
      tokensBefore: 10,
      tokens: 10,
      budget: { contextWindow: 1_000, budgetTokens: 800, triggerTokens: 600, targetTokens: 400 },
      composition: {
        system: 0,
        summary: 0,
        memories: 0,
        history: 10,
        compressed: 0,
        toolResults: 0,
        toolDefinitions: 0,
        reserved: 0,
        outputReserve: 200,
      },
      memories: [],
      offloadIds: [],
    };
    const ahead = { ...state, summarizedCount: 5, calls: [record] };
    // 1 and 2 are recorded, the state stands for more than 4 messages, 999 is past the history.
    expect(
      reconstructCallRecords({ state: ahead, history, ends: [1, 2, 4, 999], counter }),
    ).toEqual([]);
    expect(
      reconstructCallRecords({ state: ahead, history, ends: [5], counter }).map(
        (rebuilt) => rebuilt.historyMessages,
      ),
    ).toEqual([5]);
  });
});

describe('appendCallRecord', () => {
  const call = (historyMessages: number) =>
    ({ historyMessages }) as unknown as Parameters<typeof appendCallRecord>[1];

  it('keeps the newest `limit` records without changing its input', () => {
    const kept = [call(1), call(2), call(3)];
    const next = appendCallRecord(kept, call(4), 3);
    expect(next.map((record) => record.historyMessages)).toEqual([2, 3, 4]);
    expect(kept).toHaveLength(3);
    expect(appendCallRecord(undefined, call(1), 3)).toHaveLength(1);
  });
});

describe('windowPartOf', () => {
  it('puts each prompt message in one part of the window', () => {
    expect(windowPartOf({ role: 'system', content: 's' })).toBe('system');
    expect(windowPartOf({ role: 'user', content: 'u' })).toBe('history');
    expect(windowPartOf({ role: 'tool', content: [] })).toBe('toolResults');
    expect(
      windowPartOf({ role: 'system', content: 's', ctxmem: { kind: 'summary' } } as Message),
    ).toBe('summary');
    expect(
      windowPartOf({ role: 'user', content: 'm', ctxmem: { kind: 'memory-injection' } } as Message),
    ).toBe('memories');
    expect(
      windowPartOf({ role: 'tool', content: [], ctxmem: { kind: 'offload-preview' } } as Message),
    ).toBe('compressed');
  });
});

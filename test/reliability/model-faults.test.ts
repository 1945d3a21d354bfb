/**
 * Summarizer, memory-flush and embedder faults: a model that throws, is rate limited, hangs,
 * answers nothing or answers garbage. The history is never lost, no error text becomes a summary
 * or a memory, the call proceeds with a fallback (or, when the caller aborts, fails with a typed
 * error), and the next call tries the model again instead of staying on the fallback.
 */
import {
  type CtxmemEvent,
  createContextManager,
  createInMemoryHistoryStore,
  createInMemoryMemoryStore,
  createMemorySearch,
  createModelSummarizer,
  createTokenCounter,
  type Embedder,
  type Message,
  type RetrievalFallbackEvent,
  SummarizerError,
} from '@ctxmem/core';
import { createFixedEmbedder, createScriptedComplete, type ScriptedStep } from '@ctxmem/core/test';
import { describe, expect, it } from 'vitest';
import { expectValidPrompt, markedConversation, markedRound, textOf } from './helpers.js';

const counter = createTokenCounter();
/** Appears in every fault's error text: it must never reach a prompt, summary or memory. */
const FAULT = 'FAULT_7f3a';

const goodAnswer = JSON.stringify({
  summary: {
    goal: ['Finish the billing migration (model summary).'],
    decisions: ['Deploy on Fridays only.'],
  },
  memories: [{ content: 'The team deploys to production on Fridays only.', type: 'decision' }],
});

interface Fault {
  name: string;
  step: ScriptedStep;
  /** Whether the reason names a rate limit. */
  rateLimited?: boolean;
}

const faults: Fault[] = [
  { name: 'throws', step: new Error(`${FAULT} connection reset by peer`) },
  {
    name: 'is rate limited (status 429)',
    step: Object.assign(new Error(`${FAULT} Too Many Requests`), { status: 429 }),
    rateLimited: true,
  },
  { name: 'hangs until aborted', step: 'hang' },
  { name: 'answers an empty string', step: '' },
  { name: 'answers only whitespace', step: '  \n\t ' },
  {
    name: 'answers a non-string',
    step: (() => undefined) as unknown as ScriptedStep,
  },
  {
    name: 'answers late and asynchronously throws',
    step: async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      throw new Error(`${FAULT} upstream 503`);
    },
  },
];

/** A context manager on a scripted model, with every store in memory and every event recorded. */
function setup(steps: ScriptedStep[], { timeoutMs = 100 }: { timeoutMs?: number } = {}) {
  const complete = createScriptedComplete(steps, { repeatLast: true });
  const events: CtxmemEvent[] = [];
  const historyStore = createInMemoryHistoryStore();
  const memoryStore = createInMemoryMemoryStore();
  const manager = createContextManager({
    contextWindow: 3_000,
    counter,
    historyStore,
    memory: { store: memoryStore },
    // A short timeout so that a hanging model costs the test 100 ms.
    summarizer: createModelSummarizer({ complete, counter, timeoutMs }),
    onEvent: (event) => events.push(event),
  });
  return { complete, events, historyStore, memoryStore, manager };
}

async function expectHistoryComplete(
  historyStore: ReturnType<typeof createInMemoryHistoryStore>,
  history: readonly Message[],
) {
  const stored = await historyStore.read({});
  // The store gives each message an id; everything else is kept as sent.
  expect(stored.map(({ message: { id: _id, ...message } }) => message)).toEqual(history);
}

describe('summarizer faults through createContextManager', () => {
  for (const fault of faults) {
    // Protection: withFallback around the model summarizer (the extractive summarizer is the
    // last resort), the model summarizer's timeout and error wrapping, and the history store
    // written before compaction. Remove the fallback and prepare rejects; remove the timeout and
    // the hang never ends; let an error text through and the FAULT marker shows up below.
    it(`proceeds with the fallback when the model ${fault.name}, and retries the model next call`, async () => {
      const { complete, events, historyStore, memoryStore, manager } = setup([
        fault.step,
        goodAnswer,
      ]);
      const history = markedConversation('alpha', 14);
      const first = await manager.prepare(history);
      const callsAfterFirst = complete.requests.length;

      expect(first.compacted).toBe(true);
      expectValidPrompt(first.messages, history, {
        budgetTokens: manager.budget.budgetTokens,
        counter,
      });
      const fallback = first.report!.strategies.find((report) => report.fallback)?.fallback;
      expect(fallback?.from).toBe('model');
      if (fault.rateLimited) expect(fallback?.reason).toMatch(/rate limited/);
      expect(events.some((event) => event.type === 'summarizer-fallback')).toBe(true);
      if (fault.step === 'hang') {
        // The hanging call was told to stop, not just abandoned.
        expect(complete.requests[0]!.abortSignal?.aborted).toBe(true);
      }
      await expectHistoryComplete(historyStore, history);
      const state = await historyStore.getState({});
      for (const artefact of [first.messages, first.cards, state, await memoryStore.list({})]) {
        expect(textOf(artefact)).not.toContain(FAULT);
      }

      // The next compaction goes to the model again: no sticky fallback.
      const grown: Message[] = [
        ...history,
        { role: 'assistant', content: 'alpha final answer.' },
        ...markedRound('alpha', 15),
        { role: 'user', content: 'alpha second question?' },
      ];
      const second = await manager.prepare(grown, { force: true });
      expect(complete.requests.length).toBeGreaterThan(callsAfterFirst);
      expect(second.report!.strategies.some((report) => report.fallback)).toBe(false);
      expect(textOf(second.messages)).toContain('Finish the billing migration (model summary).');
      expectValidPrompt(second.messages, grown, {
        budgetTokens: manager.budget.budgetTokens,
        counter,
      });
      await expectHistoryComplete(historyStore, grown);
      expect((await memoryStore.list({})).map((card) => card.content)).toContain(
        'The team deploys to production on Fridays only.',
      );
    });
  }

  // Protection: the caller's abort stops the chain (no fallback runs after the user gave up) and
  // surfaces as a typed SummarizerError; the history was recorded before the compaction started.
  it('stops promptly with the abort reason when the caller aborts a hanging summary, keeping the history', async () => {
    // A deadline far away, so that only the caller's abort can end the hanging summary: the test
    // needs no clock, which a loaded machine would make flaky.
    const { complete, historyStore, manager } = setup(['hang', goodAnswer], { timeoutMs: 600_000 });
    const history = markedConversation('beta', 14);
    const controller = new AbortController();
    const reason = new Error('user pressed stop');
    const started = performance.now();
    setTimeout(() => controller.abort(reason), 30);
    const error = await manager
      .prepare(history, { abortSignal: controller.signal })
      .catch((thrown: unknown) => thrown);
    // Like fetch: the caller's own abort reason, or a SummarizerError that wraps it.
    expect(error === reason || SummarizerError.isInstance(error)).toBe(true);
    // Ended by the abort, long before the summarizer's own deadline would have ended it.
    expect(performance.now() - started).toBeLessThan(60_000);
    expect(complete.requests[0]!.abortSignal?.aborted).toBe(true);
    await expectHistoryComplete(historyStore, history);

    const retried = await manager.prepare(history);
    expect(retried.compacted).toBe(true);
    expect(retried.report!.strategies.some((report) => report.fallback)).toBe(false);
    expect(complete.requests).toHaveLength(2);
  });

  // Protection: the model summarizer keeps a non-JSON answer only as free text of the summary,
  // never as memory cards, and the prompt stays valid.
  it('keeps garbage and partial-JSON answers out of the memory store', async () => {
    for (const answer of [
      'lorem ipsum dolor sit amet',
      '{"summary": {"goal": ["Ship v2"], "keyFacts": ["uses pg',
      '```json\n{"summary": {"goal": [',
    ]) {
      const { events, historyStore, memoryStore, manager } = setup([answer]);
      const history = markedConversation('gamma', 14);
      const prepared = await manager.prepare(history);
      expectValidPrompt(prepared.messages, history, {
        budgetTokens: manager.budget.budgetTokens,
        counter,
      });
      expect(prepared.cards).toEqual([]);
      expect(await memoryStore.list({})).toEqual([]);
      expect(events.filter((event) => event.type === 'compaction')).toHaveLength(1);
      await expectHistoryComplete(historyStore, history);
    }
  });

  // Protection: bare JSON without summary content counts as an empty answer. Without it the
  // raw JSON ("{}") is stored as the summary's free text instead of falling back.
  it('treats a JSON answer without any summary content as empty and falls back', async () => {
    for (const answer of ['{}', '{"summary": {}}', '[]', 'null']) {
      const { manager } = setup([answer]);
      const history = markedConversation('delta', 14);
      const prepared = await manager.prepare(history);
      expect(prepared.report!.strategies.some((report) => report.fallback)).toBe(true);
    }
  });
});

describe('memory-flush faults', () => {
  function flushSetup(steps: ScriptedStep[], timeoutMs = 100) {
    const complete = createScriptedComplete(steps);
    const events: CtxmemEvent[] = [];
    const memoryStore = createInMemoryMemoryStore();
    const manager = createContextManager({
      contextWindow: 3_000,
      counter,
      memory: { store: memoryStore },
      flush: { complete, timeoutMs, reserveFloor: 0, softThreshold: 0 },
      onEvent: (event) => events.push(event),
    });
    return { complete, events, memoryStore, manager };
  }

  // Protection: the flush runs off the user's path and swallows its failures into an event; its
  // error text is never parsed into a memory card.
  it('never turns a failing or erroring flush into memories, and never blocks the turn', async () => {
    const answers: ScriptedStep[] = [
      new Error(`${FAULT} flush failed`),
      `Error: 500 Internal Server Error ${FAULT}`,
      '{"long_term": [{"content": ',
      '',
    ];
    for (const answer of answers) {
      const { events, memoryStore, manager } = flushSetup([answer]);
      const history = markedConversation('epsilon', 14);
      const prepared = await manager.prepare(history);
      expectValidPrompt(prepared.messages, history, {
        budgetTokens: manager.budget.budgetTokens,
        counter,
      });
      await manager.idle();
      expect(events.some((event) => event.type === 'memory-flush')).toBe(true);
      expect(textOf(await memoryStore.list({}))).not.toContain(FAULT);
      expect(await memoryStore.list({})).toEqual([]);
    }
  });

  // Protection: the flush timeout; a hanging silent turn does not keep `idle()` waiting forever.
  it('gives up on a hanging flush after its timeout', async () => {
    const { events, manager } = flushSetup(['hang'], 50);
    const prepared = await manager.prepare(markedConversation('zeta', 14));
    expect(prepared.messages.length).toBeGreaterThan(0);
    await manager.idle();
    const flush = events.find((event) => event.type === 'memory-flush');
    expect(flush).toMatchObject({ skipped: true, error: expect.stringMatching(/timed out/) });
  });

  // Protection: the flush passes an abort signal that fires on timeout. Without it the timed-out
  // call is abandoned but keeps running (an HTTP request still billed, a promise never settled).
  it('aborts the hanging flush call when it times out', async () => {
    const { complete, manager } = flushSetup(['hang'], 50);
    await manager.prepare(markedConversation('eta', 14));
    await manager.idle();
    expect(complete.requests[0]!.abortSignal?.aborted).toBe(true);
  });
});

describe('embedder faults', () => {
  const scope = { userId: 'embedder-user' };
  const cards = [
    { content: 'The deploy target is Kubernetes on GCP.' },
    { content: 'The user prefers dark mode in the editor.' },
    { content: 'Invoices are generated on the first day of each month.' },
  ];

  /** Records the abort signal of every embed call. */
  function recording(inner: Embedder) {
    const signals: Array<AbortSignal | undefined> = [];
    const embedder: Embedder = {
      id: inner.id,
      dimensions: inner.dimensions,
      embed(texts, options) {
        signals.push(options?.abortSignal);
        return inner.embed(texts, options);
      },
    };
    return { embedder, signals };
  }

  // Protection: the search's BM25 fallback and its timeout. Without them a failing embedder
  // rejects the search (and the user's turn), and a hanging one blocks it.
  it('answers from BM25 when the embedder fails or hangs, aborts the hung calls, and uses vectors again once it recovers', async () => {
    for (const behavior of ['fail', 'hang'] as const) {
      const memoryStore = createInMemoryMemoryStore();
      await memoryStore.add(scope, cards);
      const fake = createFixedEmbedder({ dimensions: 16, id: 'fake-model', behavior });
      const { embedder, signals } = recording(fake);
      const fallbacks: RetrievalFallbackEvent[] = [];
      const search = createMemorySearch({
        store: memoryStore,
        embedder,
        timeoutMs: 50,
        batchTimeoutMs: 80,
        // A failed embedder is left alone for embedderRetryMs (30 s by default) so that a dead
        // one does not cost a timeout per search; 0 lets this test see the recovery at once.
        embedderRetryMs: 0,
        onFallback: (event) => fallbacks.push(event),
      });

      const degraded = await search.searchWithReport(scope, 'where do we deploy');
      expect(degraded.report.usedMode).toBe('bm25');
      expect(degraded.hits[0]?.card.content).toBe('The deploy target is Kubernetes on GCP.');
      expect(fallbacks[0]?.reason).toBe(behavior === 'hang' ? 'timeout' : 'error');
      expect(textOf(fallbacks)).not.toContain('Kubernetes');
      if (behavior === 'hang') {
        await new Promise((resolve) => setTimeout(resolve, 120));
        expect(signals.length).toBeGreaterThan(0);
        expect(signals.every((signal) => signal?.aborted)).toBe(true);
      }

      fake.behavior = 'ok';
      const recovered = await search.searchWithReport(scope, 'where do we deploy');
      expect(recovered.report.usedMode).toBe('hybrid');
      expect(recovered.report.fallback).toBeUndefined();
    }
  });

  // Protection: the context manager's search timeout and catch: memory injection is optional,
  // the prompt is not.
  it('sends the prompt without memories when the search hangs', async () => {
    const hanging = {
      search: (_scope: unknown, _query: string, options?: { abortSignal?: AbortSignal }) =>
        new Promise<never>((_, reject) => {
          options?.abortSignal?.addEventListener('abort', () => reject(new Error('aborted')));
        }),
    };
    const manager = createContextManager({
      contextWindow: 3_000,
      counter,
      memory: { search: hanging, searchTimeoutMs: 50 },
    });
    const history = markedConversation('theta', 2);
    const prepared = await manager.prepare(history);
    expect(prepared.injected).toBe(0);
    expect(prepared.messages).toEqual(history);
  });

  // Protection: non-finite vectors are rejected before they are cached. Without it one garbage
  // answer keeps the scope on the BM25 fallback even after the embedder has recovered.
  it('recovers from an embedder that once returned NaN vectors', async () => {
    const memoryStore = createInMemoryMemoryStore();
    await memoryStore.add(scope, cards);
    const inner = createFixedEmbedder({ dimensions: 16, id: 'fake-model' });
    let poisoned = true;
    const embedder: Embedder = {
      id: inner.id,
      dimensions: inner.dimensions,
      async embed(texts, options) {
        const vectors = await inner.embed(texts, options);
        return poisoned ? vectors.map((vector) => vector.map(() => Number.NaN)) : vectors;
      },
    };
    const search = createMemorySearch({ store: memoryStore, embedder, embedderRetryMs: 0 });
    expect((await search.searchWithReport(scope, 'deploy target')).report.usedMode).toBe('bm25');
    poisoned = false;
    expect((await search.searchWithReport(scope, 'deploy target')).report.usedMode).toBe('hybrid');
  });
});

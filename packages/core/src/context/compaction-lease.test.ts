import { describe, expect, it } from 'vitest';
import type { CtxmemEvent, Message, Summarizer } from '../contracts/index.js';
import { createInMemoryHistoryStore } from '../history/index.js';
import { createInMemoryLeaseStore } from '../storage/index.js';
import { createExtractiveSummarizer } from '../summarize/index.js';
import { testLeaseStore } from '../test/lease-suite.js';
import { createTokenCounter } from '../tokens/index.js';
import { createContextManager } from './index.js';

testLeaseStore('in-memory lease store', async () => {
  const store = createInMemoryLeaseStore();
  return [store, store];
});

const counter = createTokenCounter();
const scope = { sessionId: 'leased' };

function longHistory(turns: number): Message[] {
  const history: Message[] = [{ role: 'system', content: 'You are an operations agent.' }];
  for (let turn = 0; turn < turns; turn++) {
    history.push({ role: 'user', content: `Turn ${turn}: the deploy of service ${turn} is done.` });
    history.push({
      role: 'assistant',
      content: `Noted. ${'We keep going with the plan. '.repeat(10)}`,
    });
  }
  return history;
}

/** A summarizer that waits until the test opens its gate, counting its calls. */
function gatedSummarizer() {
  const inner = createExtractiveSummarizer({ counter });
  let open: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  let calls = 0;
  const summarizer: Summarizer = {
    name: 'model',
    async summarize(request) {
      calls++;
      await gate;
      return inner.summarize(request);
    },
  };
  return { summarizer, open, calls: () => calls };
}

describe('compaction lease', () => {
  it('lets one of two instances call the summarizer; the other fits offline, then adopts its summary', async () => {
    const historyStore = createInMemoryHistoryStore();
    const leases = createInMemoryLeaseStore();
    const model = gatedSummarizer();
    const events: CtxmemEvent[] = [];
    const manager = () =>
      createContextManager({
        contextWindow: 3_000,
        counter,
        summarizer: model.summarizer,
        historyStore,
        leases,
        onEvent: (event) => events.push(event),
      });
    const first = manager();
    const second = manager();
    const history = longHistory(30);

    const holding = first.prepare(history, { scope });
    // Let the first instance take the lease and reach the summarizer.
    while (model.calls() === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const offline = await second.prepare(history, { scope });

    expect(model.calls()).toBe(1);
    expect(counter.countMessages(offline.messages)).toBeLessThanOrEqual(
      offline.budget.budgetTokens,
    );
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'summarizer-fallback',
        reason: expect.stringMatching(/compaction lease/),
      }),
    );
    expect((await historyStore.getState(scope))?.summary).toBeUndefined();

    model.open();
    const summarized = await holding;
    expect(counter.countMessages(summarized.messages)).toBeLessThanOrEqual(
      summarized.budget.budgetTokens,
    );
    expect((await historyStore.getState(scope))?.summary).toBeDefined();

    // The next turn on the second instance adopts the stored summary: no second summarizer call.
    const next = [...history, { role: 'user', content: 'And the next step?' } as Message];
    await second.prepare(next, { scope });
    expect(model.calls()).toBe(1);
  });

  it('releases the lease once the compaction is written', async () => {
    const leases = createInMemoryLeaseStore();
    let fail = true;
    const inner = createExtractiveSummarizer({ counter });
    const manager = createContextManager({
      contextWindow: 3_000,
      counter,
      summarizer: {
        name: 'flaky',
        async summarize(request) {
          if (fail) throw new Error('model down');
          return inner.summarize(request);
        },
      },
      historyStore: createInMemoryHistoryStore(),
      leases,
    });
    // The model fails and the extractive fallback summarizes; the lease goes once the state is written.
    await manager.prepare(longHistory(30), { scope });
    fail = false;
    const lease = await leases.tryAcquire(scope, 'compaction', 1_000);
    expect(lease).toBeDefined();
    await lease!.release();
  });
});

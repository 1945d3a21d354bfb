import { describe, expect, it } from 'vitest';
import type { Message, SummarizeRequest, Summarizer } from '../contracts/index.js';
import { SummarizerError } from '../errors/index.js';
import { withCircuitBreaker } from './with-circuit-breaker.js';

const request: SummarizeRequest = {
  messages: [{ role: 'user', content: 'hello' } satisfies Message],
  maxTokens: 100,
};

function flaky(outcomes: boolean[]): Summarizer & { calls: number } {
  const summarizer = {
    name: 'flaky',
    calls: 0,
    async summarize() {
      const ok = outcomes[summarizer.calls] ?? outcomes.at(-1);
      summarizer.calls++;
      if (!ok) throw new Error('model down');
      return {
        summary: {
          sections: {
            goal: [],
            background: [],
            keyFacts: ['ok'],
            constraints: [],
            decisions: [],
            todos: [],
            snippets: [],
          },
        },
        cards: [],
        calls: 1,
      };
    },
  };
  return summarizer;
}

describe('withCircuitBreaker', () => {
  it('stops calling after 3 failures in a row and fails at once while open', async () => {
    let now = 0;
    const inner = flaky([false]);
    const breaker = withCircuitBreaker(inner, { now: () => now });
    for (let attempt = 0; attempt < 3; attempt++) {
      await expect(breaker.summarize(request)).rejects.toThrow('model down');
    }
    const error = await breaker.summarize(request).catch((caught: unknown) => caught);
    expect(SummarizerError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/circuit open/);
    expect(inner.calls).toBe(3);
    now = 59_999;
    await expect(breaker.summarize(request)).rejects.toThrow(/circuit open/);
    expect(inner.calls).toBe(3);
  });

  it('lets one call through after the cool-down and closes on its success', async () => {
    let now = 0;
    const inner = flaky([false, false, false, true]);
    const breaker = withCircuitBreaker(inner, { now: () => now, cooldownMs: 1_000 });
    for (let attempt = 0; attempt < 3; attempt++) {
      await breaker.summarize(request).catch(() => undefined);
    }
    now = 1_000;
    const result = await breaker.summarize(request);
    expect(result.summary.sections.keyFacts).toEqual(['ok']);
    expect(inner.calls).toBe(4);
    await breaker.summarize(request);
    expect(inner.calls).toBe(5);
  });

  it('opens again for a cool-down when the trial call fails', async () => {
    let now = 0;
    const inner = flaky([false]);
    const breaker = withCircuitBreaker(inner, { now: () => now, cooldownMs: 1_000 });
    for (let attempt = 0; attempt < 3; attempt++) {
      await breaker.summarize(request).catch(() => undefined);
    }
    now = 1_000;
    await expect(breaker.summarize(request)).rejects.toThrow('model down');
    expect(inner.calls).toBe(4);
    now = 1_500;
    await expect(breaker.summarize(request)).rejects.toThrow(/circuit open/);
    expect(inner.calls).toBe(4);
  });

  it('does not count a failure the caller caused by aborting', async () => {
    const inner = flaky([false]);
    const breaker = withCircuitBreaker(inner, { failures: 1 });
    const controller = new AbortController();
    controller.abort();
    await breaker.summarize({ ...request, abortSignal: controller.signal }).catch(() => undefined);
    await expect(breaker.summarize(request)).rejects.toThrow('model down');
    expect(inner.calls).toBe(2);
  });

  it('rejects bad options with a typed error', () => {
    expect(() => withCircuitBreaker(flaky([true]), { failures: 0 })).toThrow(/failures/);
    expect(() => withCircuitBreaker({} as Summarizer)).toThrow(/Summarizer/);
  });
});

import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../errors/index.js';
import { checkTrigger } from './check-trigger.js';
import { resolveBudget } from './resolve-budget.js';

const budget = resolveBudget({ contextWindow: 100_000, maxMessages: 50 });
// reserve 10 000, budget 90 000, trigger 80 000

describe('checkTrigger', () => {
  it('does not fire below the threshold and the message limit', () => {
    expect(checkTrigger(0, 0, budget)).toBeUndefined();
    expect(checkTrigger(79_999, 50, budget)).toBeUndefined();
  });

  it('fires `threshold` at the trigger', () => {
    expect(checkTrigger(80_000, 3, budget)).toBe('threshold');
    expect(checkTrigger(90_000, 3, budget)).toBe('threshold');
  });

  it('fires `reserve` once the prompt eats into the reply reserve', () => {
    expect(checkTrigger(90_001, 3, budget)).toBe('reserve');
  });

  it('fires `reserve` before `threshold` when the reserve is what binds', () => {
    const small = resolveBudget({ contextWindow: 4_000, threshold: 1, retainedRatio: 0.5 });
    // reserve 1 000 (capped at a quarter), so the trigger is clamped to the budget of 3 000.
    expect(checkTrigger(3_000, 1, small)).toBe('threshold');
    expect(checkTrigger(3_001, 1, small)).toBe('reserve');
  });

  it('fires `message-count` above maxMessages', () => {
    expect(checkTrigger(10, 51, budget)).toBe('message-count');
    expect(checkTrigger(10, 1_000, resolveBudget({ contextWindow: 100_000 }))).toBeUndefined();
  });

  it('fires `manual` whenever asked', () => {
    expect(checkTrigger(0, 0, budget, { manual: true })).toBe('manual');
    expect(checkTrigger(95_000, 100, budget, { manual: true })).toBe('manual');
  });

  it('rejects negative or NaN counts', () => {
    for (const [tokens, count] of [
      [-1, 0],
      [Number.NaN, 0],
      [0, -1],
      [0, 1.5],
    ] as const) {
      let caught: unknown;
      try {
        checkTrigger(tokens, count, budget);
      } catch (error) {
        caught = error;
      }
      expect(InvalidArgumentError.isInstance(caught)).toBe(true);
    }
  });
});

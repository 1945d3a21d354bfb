import { describe, expect, it } from 'vitest';
import { BudgetExceededError, InvalidArgumentError } from '../errors/index.js';
import { resolveBudget } from './resolve-budget.js';

function expectInvalid(run: () => unknown, argument: string) {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  expect(InvalidArgumentError.isInstance(caught)).toBe(true);
  expect((caught as InvalidArgumentError).argument).toBe(argument);
}

describe('resolveBudget', () => {
  it('applies the defaults: trigger at 80 %, target 60 %, reserve 10 % or 2,000', () => {
    expect(resolveBudget({ contextWindow: 128_000 })).toEqual({
      contextWindow: 128_000,
      countRatio: 1,
      fixedTokens: 0,
      reserveTokens: 12_800,
      budgetTokens: 115_200,
      triggerTokens: 102_400,
      targetTokens: 76_800,
      maxMessages: undefined,
    });
  });

  it('takes tool definitions off the window and reserves the requested output exactly', () => {
    const budget = resolveBudget({
      contextWindow: 16_000,
      fixedTokens: 6_300,
      outputTokens: 2_000,
    });
    expect(budget).toMatchObject({
      fixedTokens: 6_300,
      reserveTokens: 2_000,
      budgetTokens: 7_700,
      // 80 % of what the tools leave (9,700), never above the budget; the target 75 % of that
      // trigger (60 % of 9,700 would be 5,820).
      triggerTokens: 7_700,
      targetTokens: 5_775,
    });
    expect(budget.budgetTokens + budget.fixedTokens + budget.reserveTokens).toBe(16_000);
  });

  it("divides the room for counted tokens by the count ratio; the output stays the provider's", () => {
    const budget = resolveBudget({
      contextWindow: 16_000,
      fixedTokens: 1_000,
      outputTokens: 2_000,
      countRatio: 1.3,
    });
    expect(budget).toMatchObject({
      countRatio: 1.3,
      reserveTokens: 2_000,
      // (16,000 − 2,000) / 1.3 = 10,769 counted tokens, less the tools.
      budgetTokens: 9_769,
      triggerTokens: Math.floor(0.8 * (Math.floor(16_000 / 1.3) - 1_000)),
    });
    // What the provider counts of the whole request still fits its window.
    expect(
      (budget.budgetTokens + budget.fixedTokens) * 1.3 + budget.reserveTokens,
    ).toBeLessThanOrEqual(16_000);
    expect(() => resolveBudget({ contextWindow: 8_000, countRatio: 0 })).toThrow(/countRatio/);
    expect(() => resolveBudget({ contextWindow: 8_000, countRatio: Number.NaN })).toThrow(
      /countRatio/,
    );
  });

  it('keeps the target as far below a trigger capped by the budget as the ratios say', () => {
    // 25 tools and a 4,096-token output on a 16k window: the budget caps the trigger at 6,184,
    // and 60 % of what the tools leave (6,168) would land 16 tokens under it, so that nearly every
    // call compacted again.
    const budget = resolveBudget({
      contextWindow: 16_000,
      fixedTokens: 5_720,
      outputTokens: 4_096,
    });
    expect(budget.triggerTokens).toBe(6_184);
    expect(budget.targetTokens).toBe(4_638);
    expect(budget.targetTokens / budget.triggerTokens).toBeCloseTo(0.6 / 0.8, 3);
  });

  it('throws BudgetExceededError with the numbers when tools and output leave no room', () => {
    let caught: unknown;
    try {
      resolveBudget({ contextWindow: 8_000, fixedTokens: 7_000, outputTokens: 1_000 });
    } catch (error) {
      caught = error;
    }
    expect(BudgetExceededError.isInstance(caught)).toBe(true);
    expect((caught as BudgetExceededError).message).toMatch(
      /7000 tokens of tool definitions and 1000 tokens of output/,
    );
    expect((caught as BudgetExceededError).budgetTokens).toBe(8_000);
  });

  it('rejects bad fixed and output figures', () => {
    expect(() => resolveBudget({ contextWindow: 8_000, fixedTokens: -1 })).toThrow(/fixedTokens/);
    expect(() => resolveBudget({ contextWindow: 8_000, outputTokens: 0 })).toThrow(/outputTokens/);
    expect(() => resolveBudget({ contextWindow: 8_000, outputTokens: 1.5 })).toThrow(
      /outputTokens/,
    );
  });

  it('uses the minimum reserve when 10 % is smaller', () => {
    const budget = resolveBudget({ contextWindow: 16_000 });
    expect(budget.reserveTokens).toBe(2_000);
    expect(budget.budgetTokens).toBe(14_000);
    expect(budget.triggerTokens).toBe(12_800);
  });

  it('scales the reserve down for small windows and keeps trigger ≤ budget', () => {
    const budget = resolveBudget({ contextWindow: 4_096 });
    expect(budget.reserveTokens).toBe(1_024);
    expect(budget.budgetTokens).toBe(3_072);
    expect(budget.triggerTokens).toBe(3_072);
    // 75 % of the capped trigger (0.6 / 0.8), not 60 % of the window (2,457), which is closer to it.
    expect(budget.targetTokens).toBe(2_304);
  });

  it('keeps target ≤ trigger ≤ budget < window for any window', () => {
    for (const contextWindow of [1, 2, 10, 999, 8_192, 200_000, 2_097_152]) {
      const budget = resolveBudget({ contextWindow, threshold: 1, retainedRatio: 1 });
      expect(budget.targetTokens).toBeLessThanOrEqual(budget.triggerTokens);
      expect(budget.triggerTokens).toBeLessThanOrEqual(Math.max(1, budget.budgetTokens));
      expect(budget.budgetTokens).toBeLessThanOrEqual(contextWindow);
      expect(budget.reserveTokens).toBeLessThanOrEqual(contextWindow / 4);
    }
  });

  it('honours custom ratios, reserve and message limit', () => {
    const budget = resolveBudget({
      contextWindow: 100_000,
      threshold: 0.75,
      retainedRatio: 0.5,
      reserve: { ratio: 0.05, min: 0 },
      maxMessages: 50,
    });
    expect(budget).toMatchObject({
      reserveTokens: 5_000,
      budgetTokens: 95_000,
      triggerTokens: 75_000,
      targetTokens: 50_000,
      maxMessages: 50,
    });
  });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])(
    'rejects the window %s',
    (contextWindow) => expectInvalid(() => resolveBudget({ contextWindow }), 'contextWindow'),
  );

  it.each([0, -0.1, 1.01, Number.NaN])('rejects the threshold %s', (threshold) =>
    expectInvalid(() => resolveBudget({ contextWindow: 1_000, threshold }), 'threshold'),
  );

  it.each([0, 2, Number.NaN])('rejects the retained ratio %s', (retainedRatio) =>
    expectInvalid(() => resolveBudget({ contextWindow: 1_000, retainedRatio }), 'retainedRatio'),
  );

  it('rejects a retained ratio above the threshold', () => {
    expectInvalid(
      () => resolveBudget({ contextWindow: 1_000, threshold: 0.5, retainedRatio: 0.6 }),
      'retainedRatio',
    );
  });

  it('rejects bad reserves and message limits', () => {
    expectInvalid(
      () => resolveBudget({ contextWindow: 1_000, reserve: { ratio: 1 } }),
      'reserve.ratio',
    );
    expectInvalid(
      () => resolveBudget({ contextWindow: 1_000, reserve: { min: -5 } }),
      'reserve.min',
    );
    expectInvalid(() => resolveBudget({ contextWindow: 1_000, maxMessages: 0 }), 'maxMessages');
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../errors/index.js';
import {
  CALIBRATION_MARGIN,
  CALIBRATION_OBSERVATIONS,
  COUNT_RATIO_BOUNDS,
  createCountCalibration,
  defaultCountRatio,
  weightedQuantile,
} from './count-calibration.js';

const KEY = 'claude-sonnet-4-5|tiktoken:o200k_base';

describe('defaultCountRatio', () => {
  it('starts models without a public tokenizer at 1.2 and the others at 1', () => {
    expect(defaultCountRatio('claude-sonnet-4-5')).toBe(1.2);
    expect(defaultCountRatio('gemini-2.5-pro')).toBe(1.2);
    expect(defaultCountRatio('anthropic/claude-opus-4')).toBe(1.2);
    expect(defaultCountRatio('gpt-4o')).toBe(1);
    expect(defaultCountRatio('openai/gpt-5')).toBe(1);
    expect(defaultCountRatio(undefined)).toBe(1);
  });
});

describe('weightedQuantile', () => {
  it('takes the smallest ratio whose cumulative weight reaches the quantile', () => {
    const pairs = [
      { ratio: 1.1, weight: 10 },
      { ratio: 1.5, weight: 1 },
      { ratio: 1.3, weight: 10 },
    ];
    expect(weightedQuantile(pairs, 0.5)).toBe(1.3);
    expect(weightedQuantile(pairs, 0.99)).toBe(1.5);
    expect(weightedQuantile(pairs, 0.4)).toBe(1.1);
  });
});

describe('createCountCalibration', () => {
  it('uses the prior until the provider reports, then what it reports', () => {
    const calibration = createCountCalibration({ key: KEY, prior: 1.2 });
    expect(calibration.ratio()).toBe(1.2);
    expect(calibration.observations()).toBe(0);
    expect(calibration.snapshot()).toBeUndefined();
    expect(calibration.observe(10_000, 13_000)).toBe(true);
    // 1.3 plus the 2 % margin, rounded up to a hundredth.
    expect(calibration.ratio()).toBe(Math.ceil(1.3 * (1 + CALIBRATION_MARGIN) * 100) / 100);
    expect(calibration.observations()).toBe(1);
  });

  it('does not let a first small request, whose framing inflates its ratio, outweigh the prior', () => {
    const calibration = createCountCalibration({ key: KEY, prior: 1.2 });
    expect(calibration.observe(100, 400)).toBe(false);
    expect(calibration.observe(400, 800)).toBe(true);
    expect(calibration.ratio()).toBe(1.23);
    // A large request does outweigh it.
    calibration.observe(20_000, 26_000);
    expect(calibration.ratio()).toBeCloseTo(1.33, 2);
  });

  it('settles near 1 for a provider that counts as ctxmem does, never below 1', () => {
    const calibration = createCountCalibration({ key: 'gpt-4o|tiktoken:o200k_base', prior: 1 });
    for (let index = 0; index < 10; index++) calibration.observe(20_000, 19_400 + index * 20);
    expect(calibration.ratio()).toBe(1);
    calibration.observe(20_000, 20_300);
    expect(calibration.ratio()).toBeLessThanOrEqual(1.04);
  });

  it('ignores implausible reports and does not learn when told not to', () => {
    const calibration = createCountCalibration({ key: KEY, prior: 1.2 });
    expect(calibration.observe(10_000, 0)).toBe(false);
    expect(calibration.observe(10_000, Number.NaN)).toBe(false);
    expect(calibration.observe(10_000, 500_000)).toBe(false);
    expect(calibration.observe(10_000, 900)).toBe(false);
    expect(calibration.ratio()).toBe(1.2);
    const fixed = createCountCalibration({ key: KEY, prior: 1.2, learn: false });
    expect(fixed.observe(10_000, 20_000)).toBe(false);
    expect(fixed.ratio()).toBe(1.2);
  });

  it('rejects a prior outside the bounds with a typed error', () => {
    for (const prior of [0.5, 3.5, Number.NaN]) {
      let caught: unknown;
      try {
        createCountCalibration({ key: KEY, prior });
      } catch (error) {
        caught = error;
      }
      expect(InvalidArgumentError.isInstance(caught)).toBe(true);
      expect((caught as InvalidArgumentError).argument).toBe('calibration.prior');
    }
  });

  it('forgets observations past the last 32, so it follows a drifting mix', () => {
    const calibration = createCountCalibration({ key: KEY, prior: 1.2 });
    for (let index = 0; index < CALIBRATION_OBSERVATIONS; index++) {
      calibration.observe(20_000, 36_000);
    }
    expect(calibration.ratio()).toBeGreaterThan(1.8);
    for (let index = 0; index < CALIBRATION_OBSERVATIONS; index++) {
      calibration.observe(20_000, 26_000);
    }
    expect(calibration.ratio()).toBe(Math.ceil(1.3 * (1 + CALIBRATION_MARGIN) * 100) / 100);
    expect(calibration.snapshot()?.observations).toHaveLength(CALIBRATION_OBSERVATIONS);
    expect(calibration.snapshot()?.total).toBe(2 * CALIBRATION_OBSERVATIONS);
  });

  it('adopts a fresher persisted state of the same model and counter, and nothing else', () => {
    const learned = createCountCalibration({ key: KEY, prior: 1.2 });
    for (let index = 0; index < 5; index++) learned.observe(30_000, 40_000);
    const state = learned.snapshot()!;

    const restarted = createCountCalibration({ key: KEY, prior: 1.2 });
    expect(restarted.adopt(state)).toBe(true);
    expect(restarted.ratio()).toBe(learned.ratio());
    expect(restarted.observations()).toBe(5);
    // Not older or equal states, not another model's, not garbage.
    expect(restarted.adopt({ ...state, total: 3 })).toBe(false);
    const other = createCountCalibration({ key: 'gemini-2.5-pro|tiktoken:o200k_base', prior: 1.2 });
    expect(other.adopt(state)).toBe(false);
    expect(other.adopt({ key: 'gemini-2.5-pro|tiktoken:o200k_base', total: 9 })).toBe(false);
    expect(
      other.adopt({
        key: 'gemini-2.5-pro|tiktoken:o200k_base',
        total: 9,
        observations: [['a', 1], [10_000], [10_000, -5], null],
      }),
    ).toBe(false);
    expect(other.adopt('{}')).toBe(false);
    expect(other.ratio()).toBe(1.2);
  });

  it('converges on the provider ratio from noisy reports, leaning over (property, seeded)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.8, max: 2.8, noNaN: true }),
        fc.array(
          fc.tuple(fc.integer({ min: 2_000, max: 120_000 }), fc.double({ min: -1, max: 1 })),
          { minLength: 8, maxLength: 60 },
        ),
        (truth, requests) => {
          const calibration = createCountCalibration({ key: KEY, prior: 1.2 });
          for (const [counted, noise] of requests) {
            calibration.observe(counted, Math.round(counted * truth * (1 + 0.03 * noise)));
          }
          const ratio = calibration.ratio();
          const expected = Math.min(
            COUNT_RATIO_BOUNDS.max,
            Math.max(COUNT_RATIO_BOUNDS.min, truth),
          );
          // Within the noise, plus the margin and rounding; at worst a hair under the truth.
          expect(ratio).toBeGreaterThanOrEqual(
            Math.min(
              COUNT_RATIO_BOUNDS.max,
              Math.max(1, expected * 0.97 * (1 + CALIBRATION_MARGIN)),
            ) - 1e-9,
          );
          expect(ratio).toBeLessThanOrEqual(
            Math.min(
              COUNT_RATIO_BOUNDS.max,
              Math.max(1.2 * 1.03, expected * 1.03 * (1 + CALIBRATION_MARGIN)) + 0.01,
            ) + 1e-6,
          );
        },
      ),
    );
  });

  it('stays within its bounds and shrugs off a minority of outliers (property, seeded)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1, max: 2.5, noNaN: true }),
        fc.array(fc.integer({ min: 10_000, max: 40_000 }), { minLength: 10, maxLength: 30 }),
        fc.array(fc.tuple(fc.integer({ min: 1_000, max: 10_000 }), fc.constantFrom(0.15, 6)), {
          maxLength: 3,
        }),
        fc.array(fc.tuple(fc.integer({ min: 1, max: 1e7 }), fc.integer({ min: 1, max: 1e7 })), {
          maxLength: 40,
        }),
        (truth, sizes, outliers, garbage) => {
          const calibration = createCountCalibration({ key: KEY, prior: 1.2 });
          for (const size of sizes) calibration.observe(size, Math.round(size * truth));
          // Outliers (a provider-side compaction, another request's usage) at most 3 of them,
          // each smaller than any normal report: together under 20 % of the weight.
          for (const [size, factor] of outliers) {
            calibration.observe(size, Math.round(size * truth * factor));
          }
          const ratio = calibration.ratio();
          expect(ratio).toBeGreaterThanOrEqual(truth * (1 + CALIBRATION_MARGIN) - 1e-9);
          expect(ratio).toBeLessThanOrEqual(
            Math.max(1.2, truth) * (1 + CALIBRATION_MARGIN) + 0.01 + 1e-6,
          );
          // Whatever is reported, the ratio stays within its bounds.
          for (const [counted, provider] of garbage) calibration.observe(counted, provider);
          expect(calibration.ratio()).toBeGreaterThanOrEqual(COUNT_RATIO_BOUNDS.min);
          expect(calibration.ratio()).toBeLessThanOrEqual(COUNT_RATIO_BOUNDS.max);
        },
      ),
    );
  });
});

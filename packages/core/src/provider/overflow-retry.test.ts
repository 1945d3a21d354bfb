import { describe, expect, it } from 'vitest';
import {
  OVERFLOW_RETRY_MARGIN,
  OVERFLOW_RETRY_SHARE,
  planOverflowRetry,
} from './overflow-retry.js';

const rejected = { requestTokens: 10_000, tokens: 9_000, ratio: 1.2, contextWindow: 16_000 };

describe('planOverflowRetry', () => {
  it("budgets the retry at the provider's ratio plus a margin when its count says more", () => {
    const plan = planOverflowRetry({ providerTokens: 14_000, limitTokens: 16_000 }, rejected);
    expect(plan.observedRatio).toBeCloseTo(1.4, 10);
    expect(plan.ratio).toBeCloseTo(1.4 * (1 + OVERFLOW_RETRY_MARGIN), 10);
    expect(plan.contextWindow).toBe(16_000);
    expect(plan.maxMessageTokens).toBe(8_999);
  });

  it("takes the provider's limit as the window when it is smaller than the model's", () => {
    const plan = planOverflowRetry({ limitTokens: 12_000 }, rejected);
    expect(plan.contextWindow).toBe(12_000);
    expect(plan.ratio).toBeCloseTo(1.2 * (1 + OVERFLOW_RETRY_MARGIN), 10);
  });

  it('without numbers, or numbers that explain nothing, keeps a smaller share of the messages', () => {
    for (const overflow of [{}, { providerTokens: 11_000, limitTokens: 20_000 }]) {
      const plan = planOverflowRetry(overflow, rejected);
      expect(plan.ratio).toBe(1.2);
      expect(plan.contextWindow).toBe(16_000);
      expect(plan.maxMessageTokens).toBe(Math.floor(OVERFLOW_RETRY_SHARE * 9_000));
    }
  });
});

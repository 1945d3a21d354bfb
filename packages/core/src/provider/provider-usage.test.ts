import { describe, expect, it } from 'vitest';
import { providerUsage, reportedUsage } from '../adapter-kit/index.js';

describe('reportedUsage', () => {
  it('keeps the counts that are counts, and says nothing when neither is', () => {
    expect(reportedUsage(120, 30)).toEqual({ inputTokens: 120, outputTokens: 30 });
    expect(reportedUsage(0, undefined)).toEqual({ inputTokens: 0 });
    expect(reportedUsage('120', 30)).toEqual({ outputTokens: 30 });
    for (const bad of [undefined, null, -1, Number.NaN, Number.POSITIVE_INFINITY, '7', {}]) {
      expect(reportedUsage(bad, bad), String(bad)).toBeUndefined();
    }
  });
});

describe('providerUsage', () => {
  it('takes a count above 0 as the provider’s count of the input, nothing else', () => {
    expect(providerUsage(14_100)).toEqual({ inputTokens: 14_100 });
    for (const bad of [0, -5, Number.NaN, Number.POSITIVE_INFINITY, '14100', undefined, null]) {
      expect(providerUsage(bad), String(bad)).toBeUndefined();
    }
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BASE_CHUNK_RATIO,
  computeChunkRatio,
  isOversized,
  MIN_CHUNK_RATIO,
  splitByTokens,
} from './index.js';

describe('computeChunkRatio', () => {
  it('stays at 0.4 for small messages and falls towards 0.15 as they grow', () => {
    const window = 100_000;
    expect(computeChunkRatio(Array(10).fill(25), window)).toBe(BASE_CHUNK_RATIO);
    expect(computeChunkRatio([], window)).toBe(BASE_CHUNK_RATIO);
    const medium = computeChunkRatio(Array(10).fill(10_000), window);
    expect(medium).toBeCloseTo(0.4 - 0.24, 10);
    expect(computeChunkRatio(Array(10).fill(40_000), window)).toBe(MIN_CHUNK_RATIO);
  });

  it('never rises as the average message grows, and stays within [0.15, 0.4]', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200_000 }),
        fc.integer({ min: 1, max: 200_000 }),
        (small, large) => {
          const [low, high] = small <= large ? [small, large] : [large, small];
          const lowRatio = computeChunkRatio([low], 100_000);
          const highRatio = computeChunkRatio([high], 100_000);
          expect(highRatio).toBeLessThanOrEqual(lowRatio);
          expect(highRatio).toBeGreaterThanOrEqual(MIN_CHUNK_RATIO);
          expect(lowRatio).toBeLessThanOrEqual(BASE_CHUNK_RATIO);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('isOversized', () => {
  it('flags a message above half the window once the safety margin is applied', () => {
    expect(isOversized(40_000, 100_000)).toBe(false);
    expect(isOversized(42_000, 100_000)).toBe(true);
  });
});

describe('splitByTokens', () => {
  it('keeps order, loses nothing and respects the limit except for single large items', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 50 }), { maxLength: 60 }),
        fc.integer({ min: 1, max: 100 }),
        (sizes, limit) => {
          const chunks = splitByTokens(sizes, (size) => size, limit);
          expect(chunks.flat()).toEqual(sizes);
          for (const chunk of chunks) {
            expect(chunk.length).toBeGreaterThan(0);
            const total = chunk.reduce((sum, size) => sum + size, 0);
            if (chunk.length > 1) expect(total).toBeLessThanOrEqual(limit);
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});

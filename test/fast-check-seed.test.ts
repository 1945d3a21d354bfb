import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

describe('fast-check seed', () => {
  it('follows CTXMEM_FAST_CHECK_SEED, so CI replays one seed and local runs explore', () => {
    const fixed = process.env.CTXMEM_FAST_CHECK_SEED;
    const seed = fc.readConfigureGlobal().seed;
    if (fixed) expect(seed).toBe(Number(fixed));
    else expect(seed).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { lazy } from './lazy.js';

describe('lazy', () => {
  it('creates the value on the first call only, and returns that same value after', () => {
    let calls = 0;
    const get = lazy(() => {
      calls++;
      return { made: calls };
    });
    expect(calls).toBe(0);
    const first = get();
    expect(get()).toBe(first);
    expect(calls).toBe(1);
  });

  it('keeps an undefined value instead of creating it again', () => {
    let calls = 0;
    const get = lazy(() => {
      calls++;
      return undefined;
    });
    get();
    get();
    expect(calls).toBe(1);
  });

  it('tries again after a throwing first call', () => {
    let calls = 0;
    const get = lazy(() => {
      calls++;
      if (calls === 1) throw new Error('not yet');
      return 'ready';
    });
    expect(get).toThrow('not yet');
    expect(get()).toBe('ready');
    expect(get()).toBe('ready');
    expect(calls).toBe(2);
  });
});

/**
 * mulberry32, a small deterministic generator of numbers in [0, 1): the benches generate their
 * synthetic input from fixed seeds, so every run sees the same texts and histories.
 */
export function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const WORDS = [
  'alpha',
  'budget',
  'cache',
  'delta',
  'engine',
  'filter',
  'gamma',
  'harbor',
  'index',
  'jetty',
  'kernel',
  'ledger',
  'matrix',
  'nectar',
  'orbit',
  'parcel',
  'quartz',
  'ribbon',
  'signal',
  'tundra',
  'uplink',
  'vertex',
  'willow',
  'xenon',
  'yonder',
  'zephyr',
];

/**
 * Deterministic filler text of `count` words, different for each `seed`: conversations of a
 * known size for tests and benchmarks, without copying real text.
 * @param words the vocabulary to draw from. @default 26 neutral words, alpha to zephyr
 */
export function fillerText(seed: number, count: number, words: readonly string[] = WORDS): string {
  let state = (seed * 2654435761) >>> 0;
  const out: string[] = [];
  for (let index = 0; index < count; index++) {
    state = (Math.imul(state ^ (state >>> 13), 0x5bd1e995) + index) >>> 0;
    out.push(words[state % words.length]!);
  }
  return out.join(' ');
}

/**
 * The base64 of `bytes` seeded pseudo-random bytes: a file a tool returned as base64, for tests of
 * payloads far larger than a budget. Deterministic for a seed.
 */
export function seededBase64(bytes: number, seed: number): string {
  const data = Buffer.alloc(bytes);
  let state = seed;
  for (let index = 0; index < bytes; index++) {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    data[index] = state >>> 24;
  }
  return data.toString('base64');
}

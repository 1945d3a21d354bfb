import type { Embedder } from '../contracts/index.js';

/** How a fake embedder answers: normally, by throwing, or never (until the call is aborted). */
export type FakeEmbedderBehavior = 'ok' | 'fail' | 'hang';

export interface FixedEmbedderOptions {
  /** @default 8 */
  dimensions?: number;
  /** @default 'fixed-embedder' */
  id?: string;
  /**
   * Exact vectors for exact texts (normalised on output). Other texts get a bag-of-words vector:
   * each lower-case word adds 1 to one dimension picked by a hash, so texts sharing words are
   * similar and the result never depends on call order.
   * @default {}
   */
  vectors?: Readonly<Record<string, readonly number[]>>;
  /** @default 'ok' */
  behavior?: FakeEmbedderBehavior;
  /**
   * What a failing call throws.
   * @default new Error('fake embedder failure')
   */
  error?: Error;
  /**
   * Wait before answering, in milliseconds (aborting the call ends the wait).
   * @default 0
   */
  delayMs?: number;
}

/** A deterministic `Embedder` for tests that records every call and can fail or hang on demand. */
export interface FixedEmbedder extends Embedder {
  /** The texts of every call, in order (including calls that failed or hung). */
  readonly calls: ReadonlyArray<readonly string[]>;
  /** Total number of texts asked for, over all calls. */
  readonly embeddedTexts: number;
  /** Changes how later calls answer. */
  behavior: FakeEmbedderBehavior;
  /** Changes how long later calls wait before answering. */
  delayMs: number;
}

function wordHash(word: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < word.length; index++) {
    hash ^= word.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

function normalise(vector: Float32Array): Float32Array {
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let index = 0; index < vector.length; index++) vector[index]! /= norm;
  return vector;
}

function waitOrAbort(milliseconds: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer =
      milliseconds === Number.POSITIVE_INFINITY ? undefined : setTimeout(resolve, milliseconds);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

/**
 * A fake embedder: fixed vectors for known texts, bag-of-words vectors for the rest. Count its
 * calls to check caching; set `behavior` to `'fail'` or `'hang'` to test fallbacks and timeouts.
 */
export function createFixedEmbedder({
  dimensions = 8,
  id = 'fixed-embedder',
  vectors = {},
  behavior = 'ok',
  error = new Error('fake embedder failure'),
  delayMs = 0,
}: FixedEmbedderOptions = {}): FixedEmbedder {
  const calls: string[][] = [];
  let embeddedTexts = 0;

  function vectorOf(text: string): Float32Array {
    const fixed = vectors[text];
    if (fixed) {
      if (fixed.length !== dimensions) {
        throw new RangeError(`vector for ${JSON.stringify(text)} has ${fixed.length} dimensions`);
      }
      return normalise(Float32Array.from(fixed));
    }
    const vector = new Float32Array(dimensions);
    for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
      vector[wordHash(word) % dimensions]! += 1;
    }
    return normalise(vector);
  }

  const embedder: FixedEmbedder = {
    id,
    dimensions,
    behavior,
    delayMs,
    get calls() {
      return calls;
    },
    get embeddedTexts() {
      return embeddedTexts;
    },
    async embed(texts, options) {
      calls.push([...texts]);
      embeddedTexts += texts.length;
      const signal = options?.abortSignal;
      if (embedder.behavior === 'hang') await waitOrAbort(Number.POSITIVE_INFINITY, signal);
      if (embedder.delayMs > 0) await waitOrAbort(embedder.delayMs, signal);
      if (embedder.behavior === 'fail') throw error;
      return texts.map(vectorOf);
    },
  };
  return embedder;
}

import { describe, expect, it } from 'vitest';
import { embeddingVector } from '../adapter-kit/index.js';
import { InvalidArgumentError } from '../errors/index.js';
import { EmbedderDimensionError } from './embedder-dimension-error.js';

describe('embeddingVector', () => {
  it('returns an L2-normalised copy and leaves a zero vector zero', () => {
    const input = [3, 4];
    const vector = embeddingVector(input, 2, 'model');
    expect(Array.from(vector)).toEqual([0.6000000238418579, 0.800000011920929]);
    expect(input).toEqual([3, 4]);
    expect(Array.from(embeddingVector(new Float32Array(3), 3, 'model'))).toEqual([0, 0, 0]);
  });

  it('names both lengths when the model returns another dimension', () => {
    let failure: unknown;
    try {
      embeddingVector([1, 2, 3], 2, 'wrong-model');
    } catch (error) {
      failure = error;
    }
    expect(EmbedderDimensionError.isInstance(failure)).toBe(true);
    expect(failure).toMatchObject({ embedderId: 'wrong-model', expected: 2, actual: 3 });
  });

  it('rejects a missing vector and non-finite values with a typed error', () => {
    expect(() => embeddingVector(undefined, 2, 'model')).toThrow(InvalidArgumentError);
    expect(() => embeddingVector([1, Number.NaN], 2, 'model')).toThrow(/non-finite/);
    expect(() => embeddingVector([1, Number.POSITIVE_INFINITY], 2, 'model')).toThrow(
      InvalidArgumentError,
    );
  });
});

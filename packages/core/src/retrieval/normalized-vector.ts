import { InvalidArgumentError } from '../errors/index.js';
import { EmbedderDimensionError } from './embedder-dimension-error.js';

/**
 * Checks a vector given to a `MemoryIndex` and returns an L2-normalised copy. Embedders already
 * normalise, but a vector from elsewhere must not skew the cosine scores; a zero vector stays zero
 * (it scores 0 against everything) rather than becoming NaN. Every index (brute force, HNSW,
 * pgvector) checks through this, so they reject the same input with the same message.
 */
export function normalizedVector(
  vector: unknown,
  dimensions: number,
  argument: string,
): Float32Array {
  if (!(vector instanceof Float32Array)) {
    throw new InvalidArgumentError({ message: `${argument} must be a Float32Array`, argument });
  }
  if (vector.length !== dimensions) {
    throw new InvalidArgumentError({
      message: `${argument} has ${vector.length} dimensions, the index has ${dimensions}`,
      argument,
    });
  }
  let squaredLength = 0;
  for (const value of vector) {
    if (!Number.isFinite(value)) {
      throw new InvalidArgumentError({
        message: `${argument} contains a non-finite value (${value})`,
        argument,
      });
    }
    squaredLength += value * value;
  }
  const copy = new Float32Array(vector);
  if (squaredLength > 0) {
    const scale = 1 / Math.sqrt(squaredLength);
    for (let position = 0; position < copy.length; position++) copy[position]! *= scale;
  }
  return copy;
}

/**
 * A vector an embedding model returned, checked and L2-normalised for an `Embedder`: every
 * adapter's embedder goes through this, so a model of the wrong length fails with the same
 * `EmbedderDimensionError` (which memory search treats as a configuration mistake, not a passing
 * failure) whichever framework it came from.
 */
export function embeddingVector(
  vector: unknown,
  dimensions: number,
  embedderId: string,
): Float32Array {
  if (!Array.isArray(vector) && !(vector instanceof Float32Array)) {
    throw new InvalidArgumentError({
      message: `The embedding model ${embedderId} returned no vector`,
      argument: 'embeddings',
    });
  }
  if (vector.length !== dimensions) {
    throw new EmbedderDimensionError({ embedderId, expected: dimensions, actual: vector.length });
  }
  return normalizedVector(Float32Array.from(vector as ArrayLike<number>), dimensions, 'embedding');
}

/** Dot product of two normalised vectors, clamped to the cosine's range. */
export function cosine(left: Float32Array, right: Float32Array): number {
  // Four running sums: independent additions pipeline far better than one serial chain.
  let sum0 = 0;
  let sum1 = 0;
  let sum2 = 0;
  let sum3 = 0;
  const length = Math.min(left.length, right.length);
  const end = length - (length % 4);
  let position = 0;
  for (; position < end; position += 4) {
    sum0 += left[position]! * right[position]!;
    sum1 += left[position + 1]! * right[position + 1]!;
    sum2 += left[position + 2]! * right[position + 2]!;
    sum3 += left[position + 3]! * right[position + 3]!;
  }
  for (; position < length; position++) sum0 += left[position]! * right[position]!;
  return Math.max(-1, Math.min(1, sum0 + sum1 + sum2 + sum3));
}

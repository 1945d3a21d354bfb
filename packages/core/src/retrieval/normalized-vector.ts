import { InvalidArgumentError } from '../errors/index.js';

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

/**
 * Vectors for the `MemoryIndex` conformance suite: seeded random and clustered vectors, and the
 * exact top-k an index's answers are checked against.
 */
import type { MemoryIndexHit, MemoryIndexItem } from '../contracts/index.js';

export function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

export function normalise(values: ArrayLike<number>): Float32Array {
  const vector = Float32Array.from(values);
  let squaredLength = 0;
  for (const value of vector) squaredLength += value * value;
  const scale = squaredLength > 0 ? 1 / Math.sqrt(squaredLength) : 0;
  for (let position = 0; position < vector.length; position++) vector[position]! *= scale;
  return vector;
}

export function randomVector(random: () => number, dimensions: number): Float32Array {
  return normalise(Array.from({ length: dimensions }, () => random() * 2 - 1));
}

/** A unit vector along one axis: two of them are orthogonal, so expected orders are obvious. */
export function axis(dimensions: number, position: number, weight = 1): Float32Array {
  const vector = new Float32Array(dimensions);
  vector[position % dimensions] = weight;
  return vector;
}

/** Points near `centres`, like embeddings of texts about a few topics. */
export function clusteredVectors(
  random: () => number,
  dimensions: number,
  count: number,
  clusters: number,
): Float32Array[] {
  const centres = Array.from({ length: clusters }, () => randomVector(random, dimensions));
  return Array.from({ length: count }, () => {
    const centre = centres[Math.floor(random() * clusters)]!;
    return normalise(Array.from(centre, (value) => value + (random() * 2 - 1) * 0.15));
  });
}

function dot(left: Float32Array, right: Float32Array): number {
  let sum = 0;
  for (let position = 0; position < left.length; position++)
    sum += left[position]! * right[position]!;
  return sum;
}

/** What an exact index must answer: the reference every implementation is held to. */
export function exactTopK(
  items: ReadonlyMap<string, MemoryIndexItem>,
  query: Float32Array,
  k: number,
  scopeKey: string,
): MemoryIndexHit[] {
  const normalisedQuery = normalise(query);
  return [...items.values()]
    .filter((item) => item.scopeKey === scopeKey)
    .map((item) => ({ id: item.id, score: dot(normalisedQuery, normalise(item.vector)) }))
    .sort((left, right) => right.score - left.score || (left.id < right.id ? -1 : 1))
    .slice(0, k);
}

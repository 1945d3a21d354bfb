/** How the index scores hits, for its exact and its graph search. */
import type { MemoryIndexHit } from '@ctxmem/core';
import { cosine, keepBest } from '@ctxmem/core/driver-kit';

export const clampScore = (score: number) => Math.max(-1, Math.min(1, score));

/**
 * The `limit` best hits of every label, scored exactly against `query` (normalised vectors, so
 * the dot product is the cosine).
 */
export function exactTopHits(
  labels: Iterable<number>,
  query: Float32Array,
  limit: number,
  {
    vectorOf,
    idOf,
  }: { vectorOf: (label: number) => Float32Array; idOf: (label: number) => string },
): MemoryIndexHit[] {
  const best: MemoryIndexHit[] = [];
  for (const label of labels) {
    keepBest(best, idOf(label), cosine(vectorOf(label), query), limit);
  }
  return best;
}

/**
 * The input checks and result ordering every `MemoryIndex` (brute force, HNSW, pgvector) shares,
 * so that they reject the same input with the same message and rank ties the same way.
 */
import type { MemoryIndexHit, MemoryIndexItem } from '../contracts/index.js';
import { InvalidArgumentError } from '../errors/index.js';

/** Higher score first; equal scores by id, so results never depend on insertion or graph order. */
export function compareHits(left: MemoryIndexHit, right: MemoryIndexHit): number {
  if (left.score !== right.score) return right.score - left.score;
  return left.id < right.id ? -1 : left.id > right.id ? 1 : 0;
}

/**
 * Validates `k` and clamps it to `available`. Fractions are rounded down and `Infinity` means
 * "all", so only NaN and negative values are errors.
 */
export function clampK(k: unknown, available: number): number {
  if (typeof k !== 'number' || Number.isNaN(k) || k < 0) {
    throw new InvalidArgumentError({
      message: `k must be a number >= 0, got ${String(k)}`,
      argument: 'k',
    });
  }
  return Math.min(Math.floor(k), available);
}

export function checkIndexScopeKey(
  scopeKey: unknown,
  argument: string,
): asserts scopeKey is string {
  if (typeof scopeKey !== 'string') {
    throw new InvalidArgumentError({ message: `${argument} must be a string`, argument });
  }
}

export function checkIndexArray(value: unknown, argument: string): asserts value is unknown[] {
  if (!Array.isArray(value)) {
    throw new InvalidArgumentError({ message: `${argument} must be an array`, argument });
  }
}

export function checkIndexId(id: unknown, argument: string): asserts id is string {
  if (typeof id !== 'string' || id.length === 0) {
    throw new InvalidArgumentError({ message: `${argument} must be a non-empty string`, argument });
  }
}

/** Checks the ids given to `remove`. */
export function checkIndexIds(ids: unknown): asserts ids is string[] {
  checkIndexArray(ids, 'ids');
  ids.forEach((id, position) => {
    checkIndexId(id, `ids[${position}]`);
  });
}

/**
 * Validates a whole `upsert` batch before anything is applied, so a bad item cannot leave half a
 * batch in the index; `prepareVector` checks and converts each vector (`normalizedVector`…). Of
 * duplicate ids the last one wins, like consecutive upserts.
 */
export function prepareIndexItems<Vector>(
  items: readonly MemoryIndexItem[],
  prepareVector: (vector: unknown, argument: string) => Vector,
): Array<{ id: string; scopeKey: string; vector: Vector }> {
  checkIndexArray(items, 'items');
  const byId = new Map<string, { id: string; scopeKey: string; vector: Vector }>();
  items.forEach((item: MemoryIndexItem, position) => {
    checkIndexId(item?.id, `items[${position}].id`);
    checkIndexScopeKey(item.scopeKey, `items[${position}].scopeKey`);
    const vector = prepareVector(item.vector, `items[${position}].vector`);
    byId.delete(item.id);
    byId.set(item.id, { id: item.id, scopeKey: item.scopeKey, vector });
  });
  return [...byId.values()];
}

/**
 * Adds the hit (`id`, `score`) to `best`, the sorted `limit` best hits so far, when it ranks among
 * them. `limit` is small and a scan can be large, so a hit object is only allocated for a score
 * that enters the list.
 */
export function keepBest(best: MemoryIndexHit[], id: string, score: number, limit: number): void {
  if (best.length === limit) {
    const worst = best[limit - 1]!;
    if (score < worst.score || (score === worst.score && id > worst.id)) return;
  }
  const hit = { id, score };
  let position = best.length;
  while (position > 0 && compareHits(hit, best[position - 1]!) < 0) position--;
  best.splice(position, 0, hit);
  if (best.length > limit) best.pop();
}

import { InvalidArgumentError, type MemoryIndexItem } from '@ctxmem/core';
import { normalizedVector } from '@ctxmem/core/driver-kit';

export function checkPositiveInteger(argument: string, value: unknown): asserts value is number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new InvalidArgumentError({
      message: `${argument} must be a positive integer, got ${String(value)}`,
      argument,
    });
  }
}

/**
 * Checks a vector and returns it L2-normalised as a plain array (the native binding accepts only
 * arrays); the values are the Float32 ones the native index stores.
 */
export function normalisedArray(vector: unknown, dimensions: number, argument: string): number[] {
  return Array.from(normalizedVector(vector, dimensions, argument));
}

export interface PreparedItem {
  id: string;
  scopeKey: string;
  vector: number[];
}

/**
 * Validates a whole batch before anything is applied, so a bad item cannot leave half a batch in
 * the index. Of duplicate ids the last one wins, like consecutive upserts.
 */
export function prepareItems(
  items: readonly MemoryIndexItem[],
  dimensions: number,
): PreparedItem[] {
  if (!Array.isArray(items)) {
    throw new InvalidArgumentError({ message: 'items must be an array', argument: 'items' });
  }
  const byId = new Map<string, PreparedItem>();
  items.forEach((item: MemoryIndexItem, position) => {
    checkId(item?.id, `items[${position}].id`);
    if (typeof item.scopeKey !== 'string') {
      throw new InvalidArgumentError({
        message: `items[${position}].scopeKey must be a string`,
        argument: `items[${position}].scopeKey`,
      });
    }
    const vector = normalisedArray(item.vector, dimensions, `items[${position}].vector`);
    byId.delete(item.id);
    byId.set(item.id, { id: item.id, scopeKey: item.scopeKey, vector });
  });
  return [...byId.values()];
}

export function checkId(id: unknown, argument: string): asserts id is string {
  if (typeof id !== 'string' || id.length === 0) {
    throw new InvalidArgumentError({ message: `${argument} must be a non-empty string`, argument });
  }
}

/** Validates `k` and clamps it to `available`: fractions round down, `Infinity` means all. */
export function clampK(k: unknown, available: number): number {
  if (typeof k !== 'number' || Number.isNaN(k) || k < 0) {
    throw new InvalidArgumentError({
      message: `k must be a number >= 0, got ${String(k)}`,
      argument: 'k',
    });
  }
  return Math.min(Math.floor(k), available);
}

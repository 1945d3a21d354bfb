import { InvalidArgumentError, type MemoryIndexItem } from '@ctxmem/core';
import { normalizedVector, prepareIndexItems } from '@ctxmem/core/driver-kit';

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

/** A whole batch validated (see `prepareIndexItems`), with its vectors as the native index takes them. */
export function prepareItems(
  items: readonly MemoryIndexItem[],
  dimensions: number,
): PreparedItem[] {
  return prepareIndexItems(items, (vector, argument) =>
    normalisedArray(vector, dimensions, argument),
  );
}

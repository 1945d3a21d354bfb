import type { TokenCounter } from '../contracts/index.js';
import { InvalidArgumentError } from '../errors/index.js';

export function requireCounter(counter: TokenCounter | undefined): void {
  if (!counter || typeof counter.countText !== 'function') {
    throw new InvalidArgumentError({
      message: 'counter is required (a TokenCounter)',
      argument: 'counter',
    });
  }
}

export function requirePositiveInteger(option: string, value: number): void {
  if (!Number.isInteger(value) || value <= 0) {
    throw new InvalidArgumentError({
      message: `${option} must be a positive integer, got ${value}`,
      argument: option,
    });
  }
}

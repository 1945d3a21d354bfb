import type { TokenCounter } from '../contracts/index.js';
import { InvalidArgumentError } from '../errors/index.js';
import { requireOption, TOKEN_COUNTER_OPTION } from '../validation/index.js';

export function requireCounter(counter: TokenCounter | undefined, functionName: string): void {
  requireOption(functionName, 'counter', counter, TOKEN_COUNTER_OPTION);
}

export function requirePositiveInteger(option: string, value: number): void {
  if (!Number.isInteger(value) || value <= 0) {
    throw new InvalidArgumentError({
      message: `${option} must be a positive integer, got ${value}`,
      argument: option,
    });
  }
}

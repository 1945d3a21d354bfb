import { InvalidArgumentError } from '../errors/index.js';
export function requireCounter(counter) {
  if (!counter || typeof counter.countText !== 'function') {
    throw new InvalidArgumentError({
      message: 'counter is required (a TokenCounter)',
      argument: 'counter',
    });
  }
}
export function requirePositiveInteger(option, value) {
  if (!Number.isInteger(value) || value <= 0) {
    throw new InvalidArgumentError({
      message: `${option} must be a positive integer, got ${value}`,
      argument: option,
    });
  }
}
//# sourceMappingURL=validate-options.js.map

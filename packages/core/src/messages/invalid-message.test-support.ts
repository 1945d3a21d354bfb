/** For the message tests: the `InvalidMessageError` an action throws, to assert its path and text. */
import { InvalidMessageError } from '../errors/index.js';

export function thrownInvalidMessage(action: () => unknown): InvalidMessageError {
  try {
    action();
  } catch (error) {
    if (InvalidMessageError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected an InvalidMessageError');
}

/** `[...before, <hole>, ...after]`: a sparse array, whose hole `map` and `forEach` skip. */
export function withHole(before: readonly unknown[], after: readonly unknown[]): unknown[] {
  const list = [...before];
  list.length += 1;
  list.push(...after);
  return list;
}

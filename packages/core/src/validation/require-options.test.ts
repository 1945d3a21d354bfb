import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../errors/index.js';
import { requireOption, requireOptions } from './require-options.js';

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('did not throw');
}

describe('requireOptions', () => {
  it('returns an options object as given', () => {
    const options = { a: 1 };
    expect(requireOptions(options, 'make')).toBe(options);
  });

  it.each([
    [undefined, 'nothing'],
    [null, 'null'],
    ['x', 'string'],
    [[], 'an array'],
  ])('rejects %j, naming the function', (value, kind) => {
    const error = thrown(() => requireOptions(value as never, 'make'));
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      argument: 'options',
      message: `make: options must be an object, got ${kind}`,
    });
  });
});

describe('requireOptions with required options', () => {
  const required = {
    root: { expected: 'a path', type: 'string' },
    counter: { expected: 'a TokenCounter', methods: ['countText'] },
  } as const;

  it('checks each, in order, and returns the options as given', () => {
    const options = { root: '/x', counter: { countText: () => 1 } };
    expect(requireOptions(options, 'make', required)).toBe(options);
    expect(thrown(() => requireOptions({}, 'make', required))).toMatchObject({
      argument: 'root',
      message: 'make: options.root is required (a path)',
    });
    expect(
      thrown(() => requireOptions({ root: '/x', counter: {} }, 'make', required)),
    ).toMatchObject({
      argument: 'counter',
      message: 'make: options.counter must be a TokenCounter, got an object',
    });
  });
});

describe('requireOption', () => {
  const counter = { expected: 'a TokenCounter', methods: ['countText'] } as const;

  it('accepts a value of the expected kind', () => {
    expect(() => requireOption('make', 'counter', { countText: () => 1 }, counter)).not.toThrow();
    expect(() =>
      requireOption('make', 'root', '/x', { expected: 'a path', type: 'string' }),
    ).not.toThrow();
  });

  it('names the function and the option when it is missing', () => {
    const error = thrown(() => requireOption('make', 'counter', undefined, counter));
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      argument: 'counter',
      message: 'make: options.counter is required (a TokenCounter)',
    });
  });

  it('rejects a value of the wrong type or without the methods', () => {
    expect(thrown(() => requireOption('make', 'counter', {}, counter))).toMatchObject({
      message: 'make: options.counter must be a TokenCounter, got an object',
    });
    expect(
      thrown(() => requireOption('make', 'root', 3, { expected: 'a path', type: 'string' })),
    ).toMatchObject({ message: 'make: options.root must be a path, got number' });
  });
});

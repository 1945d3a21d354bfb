import { describe, expect, it } from 'vitest';
import { thrownInvalidMessage, withHole } from './invalid-message.test-support.js';
import { checkJsonValue, inspectJsonValue, MAX_MESSAGE_JSON_DEPTH } from './json-values.js';

const strict = { checkText: false, repair: false };

describe('checkJsonValue', () => {
  it.each<[string, () => unknown, string, string]>([
    [
      'an object that refers to itself',
      () => {
        const value: Record<string, unknown> = { a: 1 };
        value.self = value;
        return value;
      },
      'body.self',
      'circular reference',
    ],
    [
      'a cycle through an array',
      () => {
        const list: unknown[] = [1];
        list.push({ back: list });
        return { list };
      },
      'body.list[1].back',
      'circular reference',
    ],
    ['a BigInt', () => ({ n: BigInt(1) }), 'body.n', 'a bigint is not a JSON value'],
    ['a symbol', () => ({ s: Symbol('s') }), 'body.s', 'a symbol is not a JSON value'],
    ['a function', () => [() => 1], 'body[0]', 'a function is not a JSON value'],
    ['a Date', () => ({ at: new Date(0) }), 'body.at', 'a Date is not a JSON value'],
    ['NaN', () => ({ n: Number.NaN }), 'body.n', 'NaN is not a JSON number'],
    ['undefined in an array', () => [1, undefined], 'body[1]', 'undefined is not a JSON value'],
    ['a hole in an array', () => withHole([1], [2]), 'body[1]', 'the array has a hole'],
    [
      'a getter that throws',
      () =>
        Object.defineProperty({}, 'secret', {
          enumerable: true,
          get: () => {
            throw new TypeError('revoked');
          },
        }),
      'body.secret',
      'reading it threw (TypeError: revoked)',
    ],
    [
      'a proxy whose keys cannot be listed',
      () => ({
        inner: new Proxy(
          {},
          {
            ownKeys: () => {
              throw new Error('no keys');
            },
          },
        ),
      }),
      'body.inner',
      'reading it threw (Error: no keys)',
    ],
    ['bytes without binaryData', () => ({ data: new Uint8Array(2) }), 'body.data', 'Uint8Array'],
  ])('rejects %s, naming its path', (_case, make, path, problem) => {
    const error = thrownInvalidMessage(() => checkJsonValue(make(), 'body'));
    expect(error.path).toBe(path);
    expect(error.message.startsWith(`${path}: `)).toBe(true);
    expect(error.message).toContain(problem);
  });

  it('accepts bytes and URLs with binaryData, and undefined object fields (JSON drops them)', () => {
    const value = {
      data: new Uint8Array([1, 2]),
      buffer: new ArrayBuffer(4),
      url: new URL('https://example.com/a.png'),
      optional: undefined,
    };
    expect(() => checkJsonValue(value, 'body', { binaryData: true })).not.toThrow();
  });

  // Protection: the walk keeps the objects it finished. Without that, a value that shares its
  // parts (each level referring twice to the one below) costs 2^depth steps and never ends.
  it('walks an object shared in many places once: linear, not exponential', () => {
    let shared: unknown = { leaf: 'x'.repeat(1000) };
    for (let level = 0; level < 60; level++) shared = { left: shared, right: shared };
    const started = process.cpuUsage();
    checkJsonValue({ shared }, 'body');
    const { user, system } = process.cpuUsage(started);
    // 2^60 visits would take years; 61 take microseconds. A wide margin for a busy machine.
    expect((user + system) / 1000).toBeLessThan(1000);
  });

  it('counts the depth of a shared object wherever it is met again', () => {
    let deep: unknown = 1;
    for (let level = 0; level < MAX_MESSAGE_JSON_DEPTH - 10; level++) deep = [deep];
    // First met near the top (fine there), then again 20 levels down (too deep there).
    let wrapped: unknown = deep;
    for (let level = 0; level < 20; level++) wrapped = { down: wrapped };
    const error = thrownInvalidMessage(() =>
      inspectJsonValue({ first: deep, second: wrapped }, 'input', strict),
    );
    expect(error.path.startsWith('input.second.down.down')).toBe(true);
    expect(error.message).toContain(`deeper than ${MAX_MESSAGE_JSON_DEPTH} levels`);
  });

  it('repairs a shared value once and keeps the sharing in the repaired copy', () => {
    const shared = { text: 'bad \uD800' };
    const repairs: string[] = [];
    const repaired = inspectJsonValue({ a: shared, b: shared }, 'input', {
      checkText: true,
      repair: true,
      onRepair: (path) => repairs.push(path),
    }) as { a: { text: string }; b: { text: string } };
    expect(repaired.a.text).toBe('bad \uFFFD');
    expect(repaired.b).toBe(repaired.a);
    expect(shared.text).toBe('bad \uD800');
    expect(repairs).toEqual(['input.a.text']);
  });
});

describe('inspectJsonValue with ancestors', () => {
  it('reports a reference back to an enclosing object as a cycle at the referring path', () => {
    const message: Record<string, unknown> = { role: 'user' };
    const input: Record<string, unknown> = { back: message };
    const error = thrownInvalidMessage(() =>
      inspectJsonValue(input, 'messages[0].content[0].input', strict, [message]),
    );
    expect(error.message).toBe('messages[0].content[0].input.back: circular reference');
    expect(() => inspectJsonValue(message, 'value', strict, [message])).toThrow(
      'value: circular reference',
    );
  });
});

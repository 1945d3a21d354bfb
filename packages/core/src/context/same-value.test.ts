import { describe, expect, it } from 'vitest';
import { sameValue, snapshotValue } from './same-value.js';

describe('sameValue', () => {
  it('compares request values by content, an undefined property as a missing one', () => {
    const message = {
      role: 'user',
      content: [{ type: 'text', text: 'hi', providerOptions: undefined }],
    };
    expect(sameValue(message, structuredClone(message))).toBe(true);
    expect(sameValue(message, { role: 'user', content: [{ type: 'text', text: 'hi' }] })).toBe(
      true,
    );
    expect(sameValue(message, { role: 'user', content: [{ type: 'text', text: 'hí' }] })).toBe(
      false,
    );
    expect(sameValue({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(sameValue({ a: 1, b: 2 }, { a: 1 })).toBe(false);
    expect(sameValue([1, 2], [1, 2, 3])).toBe(false);
    expect(sameValue([1, 2], { 0: 1, 1: 2 })).toBe(false);
    expect(sameValue(Object.assign(Object.create(null), { a: 1 }), { a: 1 })).toBe(true);
    expect(sameValue(Number.NaN, Number.NaN)).toBe(false);
  });

  it('compares bytes and URLs by content, other instances only by identity', () => {
    expect(sameValue(new Uint8Array([1, 2]), new Uint8Array([1, 2]))).toBe(true);
    expect(sameValue(new Uint8Array([1, 2]), new Uint8Array([1, 3]))).toBe(false);
    expect(sameValue(new URL('https://a.test/x'), new URL('https://a.test/x'))).toBe(true);
    expect(sameValue(new URL('https://a.test/x'), 'https://a.test/x')).toBe(false);
    const map = new Map([[1, 2]]);
    expect(sameValue(map, map)).toBe(true);
    expect(sameValue(map, new Map([[1, 2]]))).toBe(false);
    class Point {
      constructor(readonly x: number) {}
    }
    expect(sameValue(new Point(1), { x: 1 })).toBe(false);
    expect(sameValue({ x: 1 }, new Point(1))).toBe(false);
  });

  it('stops at a depth limit instead of overflowing the stack', () => {
    const deep = (depth: number) => {
      let value: unknown = 'leaf';
      for (let level = 0; level < depth; level++) value = { value };
      return value;
    };
    expect(sameValue(deep(50), deep(50))).toBe(true);
    // Deeper values compare as different: a cache miss, never a wrong hit.
    expect(sameValue(deep(10_000), deep(10_000))).toBe(false);
  });
});

describe('snapshotValue', () => {
  it('copies what a caller could change in place and keeps it equal', () => {
    const tools = [
      { name: 't', schema: { properties: { q: { type: 'string' } } }, bytes: new Uint8Array([1]) },
    ];
    const snapshot = snapshotValue(tools) as typeof tools;
    expect(sameValue(snapshot, tools)).toBe(true);
    tools[0]!.schema.properties.q.type = 'number';
    tools[0]!.bytes[0] = 9;
    expect(sameValue(snapshot, tools)).toBe(false);
    expect(snapshot[0]!.schema.properties.q.type).toBe('string');
    expect(snapshot[0]!.bytes[0]).toBe(1);
  });
});

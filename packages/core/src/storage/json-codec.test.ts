import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../errors/index.js';
import {
  canonicalJson,
  canonicalJsonChunks,
  cloneStorable,
  decodeStorable,
  encodeStorable,
  jsonChunks,
  type StorableJson,
} from './index.js';

const throughJson = (value: unknown) =>
  decodeStorable(JSON.parse(JSON.stringify(encodeStorable(value))));

describe('storage JSON codec', () => {
  it('round-trips bytes, array buffers and URLs through JSON text', () => {
    const bytes = Buffer.from([1, 2, 3, 255]).subarray(1);
    const buffer = new Uint8Array([9, 8, 7]).buffer;
    const back = throughJson({ bytes, buffer, url: new URL('https://a.example/x?y=1') }) as {
      bytes: Uint8Array;
      buffer: ArrayBuffer;
      url: URL;
    };
    expect(back.bytes).toBeInstanceOf(Uint8Array);
    expect([...back.bytes]).toEqual([2, 3, 255]);
    expect(back.buffer).toBeInstanceOf(ArrayBuffer);
    expect([...new Uint8Array(back.buffer)]).toEqual([9, 8, 7]);
    expect(back.url).toBeInstanceOf(URL);
    expect(back.url.href).toBe('https://a.example/x?y=1');
  });

  it('keeps user objects that use the tag key or __proto__ as plain data', () => {
    const tricky = JSON.parse('{"$ctxmem":"bytes","base64":"AAAA","__proto__":{"polluted":true}}');
    const back = throughJson({ nested: tricky }) as { nested: Record<string, unknown> };
    expect(back.nested.$ctxmem).toBe('bytes');
    expect(back.nested.base64).toBe('AAAA');
    expect(Object.hasOwn(back.nested, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(back.nested)).toBe(Object.prototype);
  });

  it('follows JSON.stringify for undefined, functions, non-finite numbers and dates', () => {
    const back = throughJson({
      gone: undefined,
      fn: () => 1,
      list: [undefined, Number.NaN, Number.POSITIVE_INFINITY],
      date: new Date('2026-01-01T00:00:00.000Z'),
    });
    expect(back).toEqual({ list: [null, null, null], date: '2026-01-01T00:00:00.000Z' });
  });

  it('rejects cycles and bigints with InvalidArgumentError naming the path', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    for (const [value, path] of [
      [cyclic, '$.self'],
      [{ list: [1, 2n] }, '$.list[1]'],
    ] as const) {
      let error: unknown;
      try {
        encodeStorable(value);
      } catch (caught) {
        error = caught;
      }
      expect(InvalidArgumentError.isInstance(error)).toBe(true);
      expect((error as InvalidArgumentError).argument).toBe(path);
    }
    // A shared (not cyclic) object is fine.
    const shared = { x: 1 };
    expect(encodeStorable({ a: shared, b: shared })).toEqual({ a: { x: 1 }, b: { x: 1 } });
  });

  it('makes canonical JSON independent of key order', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { f: 2, e: 3 }], c: 2 } })).toBe(
      canonicalJson({ a: { c: 2, d: [1, { e: 3, f: 2 }] }, b: 1 }),
    );
    expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: '1' }));
  });

  it('round-trips any JSON value, also with bytes mixed in', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.uint8Array({ maxLength: 40 }), (value, bytes) => {
        expect(JSON.stringify(throughJson(value))).toBe(JSON.stringify(value));
        const back = throughJson({ value, bytes }) as { bytes: Uint8Array };
        expect([...back.bytes]).toEqual([...bytes]);
      }),
      { numRuns: 200 },
    );
  });

  it('clones deeply', () => {
    const original = { list: [{ a: 1 }], bytes: new Uint8Array([1]) };
    const copy = cloneStorable(original);
    copy.list[0]!.a = 2;
    copy.bytes[0] = 9;
    expect(original.list[0]!.a).toBe(1);
    expect(original.bytes[0]).toBe(1);
  });
});

// Strings of the characters whose escaping differs: quotes, backslashes, controls, lone and paired
// surrogates, so that a slice boundary lands inside a pair and next to an escape.
const trickyString = fc
  .array(fc.constantFrom('a', '"', '\\', '\n', '\u0001', '\u2028', 'é', '😀', '\ud800', '\udfff'), {
    maxLength: 60,
  })
  .map((pieces) => pieces.join(''));

const trickyJson: fc.Arbitrary<StorableJson> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    trickyString,
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(
      fc.oneof(trickyString, fc.constantFrom('0', '10', '2', '__proto__')),
      tie('value'),
      {
        maxKeys: 4,
      },
    ),
  ),
})).value as fc.Arbitrary<StorableJson>;

describe('jsonChunks', () => {
  it('joins to exactly JSON.stringify, whatever the piece size (property)', () => {
    fc.assert(
      fc.property(trickyJson, fc.integer({ min: 1, max: 9 }), (value, chunkChars) => {
        const chunks = [...jsonChunks(value, chunkChars)];
        expect(chunks.join('')).toBe(JSON.stringify(value));
        // Pieces stay near the size asked for: a string is escaped a slice at a time.
        for (const chunk of chunks)
          expect(chunk.length).toBeLessThanOrEqual(6 * (chunkChars + 1) + 40);
      }),
      { numRuns: 500 },
    );
  });

  it('joins to canonicalJson for hashing, for small and large values alike', () => {
    fc.assert(
      fc.property(trickyJson, (value) => {
        expect([...canonicalJsonChunks(value)].join('')).toBe(canonicalJson(value));
      }),
      { numRuns: 200 },
    );
    const large = { b: 'x😀'.repeat(40_000), a: [1, { d: 'é'.repeat(70_000), c: null }] };
    const chunks = [...canonicalJsonChunks(large)];
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.join('')).toBe(canonicalJson(large));
  });
});

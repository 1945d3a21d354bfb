import { InvalidArgumentError } from '../errors/index.js';

/** A value JSON can represent exactly. */
export type StorableJson =
  | null
  | boolean
  | number
  | string
  | StorableJson[]
  | { [key: string]: StorableJson };

/** Marks encoded non-JSON values; a plain object that has this key itself is wrapped. */
const TAG = '$ctxmem';

/** Sets an own property, so that a key named `__proto__` stays data instead of changing the prototype. */
export function setOwnProperty(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

function fail(path: string, reason: string): never {
  throw new InvalidArgumentError({
    message: `Cannot store the value at ${path}: ${reason}.`,
    argument: path,
  });
}

function encodeAt(value: unknown, path: string, ancestors: Set<object>): StorableJson | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : null;
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    case 'bigint':
      return fail(path, 'a bigint has no JSON form');
  }
  if (value === null) return null;
  const object = value as object;
  if (object instanceof Uint8Array) {
    return {
      [TAG]: 'bytes',
      base64: Buffer.from(object.buffer, object.byteOffset, object.byteLength).toString('base64'),
    };
  }
  if (object instanceof ArrayBuffer) {
    return { [TAG]: 'array-buffer', base64: Buffer.from(object).toString('base64') };
  }
  if (object instanceof URL) return { [TAG]: 'url', href: object.href };
  if (ancestors.has(object)) return fail(path, 'it contains a cycle');
  ancestors.add(object);
  try {
    if (Array.isArray(object)) {
      return object.map((item, index) => encodeAt(item, `${path}[${index}]`, ancestors) ?? null);
    }
    const withJson = object as { toJSON?: () => unknown };
    if (typeof withJson.toJSON === 'function') {
      return encodeAt(withJson.toJSON(), path, ancestors);
    }
    const encoded: { [key: string]: StorableJson } = {};
    for (const [key, item] of Object.entries(object)) {
      const encodedItem = encodeAt(item, `${path}.${key}`, ancestors);
      if (encodedItem !== undefined) setOwnProperty(encoded, key, encodedItem);
    }
    return Object.hasOwn(encoded, TAG) ? { [TAG]: 'object', value: encoded } : encoded;
  } finally {
    ancestors.delete(object);
  }
}

/**
 * Turns a value into plain JSON without losing what `JSON.stringify` would lose in messages:
 * `Uint8Array` / `Buffer` (as base64), `ArrayBuffer` and `URL` are tagged so that
 * `decodeStorable` restores them. Otherwise it follows `JSON.stringify`: `undefined` properties are
 * dropped, non-finite numbers become `null`, `toJSON` is honoured. Throws `InvalidArgumentError`
 * (naming the path) for cycles and bigints.
 */
export function encodeStorable(value: unknown, path = '$'): StorableJson {
  return encodeAt(value, path, new Set()) ?? null;
}

/** Restores what `encodeStorable` tagged. The input is not modified. */
export function decodeStorable(value: StorableJson): unknown {
  if (Array.isArray(value)) return value.map(decodeStorable);
  if (value === null || typeof value !== 'object') return value;
  const tag = value[TAG];
  if (typeof tag === 'string') {
    if (tag === 'bytes' && typeof value.base64 === 'string') {
      return new Uint8Array(Buffer.from(value.base64, 'base64'));
    }
    if (tag === 'array-buffer' && typeof value.base64 === 'string') {
      const bytes = Buffer.from(value.base64, 'base64');
      return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    }
    if (tag === 'url' && typeof value.href === 'string') return new URL(value.href);
    if (
      tag === 'object' &&
      value.value !== null &&
      typeof value.value === 'object' &&
      !Array.isArray(value.value)
    ) {
      return decodeEntries(value.value);
    }
  }
  return decodeEntries(value);
}

function decodeEntries(value: { [key: string]: StorableJson }): Record<string, unknown> {
  const decoded: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value))
    setOwnProperty(decoded, key, decodeStorable(item));
  return decoded;
}

function sortKeys(value: StorableJson): StorableJson {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const sorted: { [key: string]: StorableJson } = {};
  for (const key of Object.keys(value).sort()) setOwnProperty(sorted, key, sortKeys(value[key]!));
  return sorted;
}

/** JSON with object keys sorted at every level: equal values give equal strings (for content ids). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(encodeStorable(value)));
}

/** `canonicalJson` in pieces (see `jsonChunks`), for hashing a value without one string of it. */
export function canonicalJsonChunks(value: unknown): Iterable<string> {
  const sorted = sortKeys(encodeStorable(value));
  // Most values are small: one `JSON.stringify` is faster than walking them piece by piece.
  return hasMoreText(sorted, JSON_CHUNK_CHARS) ? jsonChunks(sorted) : [JSON.stringify(sorted)];
}

/** Whether the strings and keys in `value` have more than `limit` characters in all. */
export function hasMoreText(value: StorableJson, limit: number): boolean {
  let left = limit;
  const visit = (item: StorableJson): boolean => {
    if (typeof item === 'string') {
      left -= item.length;
      return left < 0;
    }
    if (item === null || typeof item !== 'object') return false;
    if (Array.isArray(item)) return item.some(visit);
    for (const key of Object.keys(item)) {
      left -= key.length;
      if (left < 0 || visit(item[key]!)) return true;
    }
    return false;
  };
  return visit(value);
}

/** Whether a surrogate pair starts at `index` (a high half followed by a low half). */
function isPairAt(text: string, index: number): boolean {
  const high = text.charCodeAt(index);
  const low = text.charCodeAt(index + 1);
  return high >= 0xd800 && high <= 0xdbff && low >= 0xdc00 && low <= 0xdfff;
}

/**
 * Size of the pieces `jsonChunks` yields, in characters (a string value is cut into these): small
 * enough that each piece is an ordinary young object, freed by the next scavenge, never one of
 * V8's large objects, which only a full collection frees.
 */
const JSON_CHUNK_CHARS = 32 * 1024;

/**
 * `JSON.stringify(value)` in pieces of about 32k characters whose concatenation is exactly that string:
 * a 50 MB tool result is hashed or written without a second 50 MB copy of it. A long string
 * value is escaped a slice at a time, never between the two halves of a surrogate pair (which
 * `JSON.stringify` would escape as lone surrogates).
 */
export function* jsonChunks(value: StorableJson, chunkChars = JSON_CHUNK_CHARS): Generator<string> {
  let pending = '';
  // Strings and short values join `pending`; it is handed out once it is a chunk long.
  function* emit(text: string): Generator<string> {
    pending += text;
    if (pending.length >= chunkChars) {
      yield pending;
      pending = '';
    }
  }
  function* write(item: StorableJson): Generator<string> {
    if (typeof item === 'string') {
      if (item.length <= chunkChars) {
        yield* emit(JSON.stringify(item));
        return;
      }
      yield* emit('"');
      for (let start = 0; start < item.length; ) {
        let end = Math.min(item.length, start + chunkChars);
        // Never between the halves of a pair: end the slice before it, or after it when the
        // slice would otherwise be empty.
        if (end < item.length && isPairAt(item, end - 1)) end += end - 1 > start ? -1 : 1;
        yield* emit(JSON.stringify(item.slice(start, end)).slice(1, -1));
        start = end;
      }
      yield* emit('"');
      return;
    }
    if (item === null || typeof item !== 'object') {
      yield* emit(JSON.stringify(item) ?? 'null');
      return;
    }
    if (Array.isArray(item)) {
      yield* emit('[');
      for (let index = 0; index < item.length; index++) {
        if (index > 0) yield* emit(',');
        const element = item[index];
        // As JSON.stringify: an array slot without a JSON value is `null`.
        if (element === undefined) yield* emit('null');
        else yield* write(element);
      }
      yield* emit(']');
      return;
    }
    yield* emit('{');
    let first = true;
    for (const key of Object.keys(item)) {
      const element = item[key];
      if (element === undefined) continue;
      yield* emit(`${first ? '' : ','}${JSON.stringify(key)}:`);
      first = false;
      yield* write(element);
    }
    yield* emit('}');
  }
  yield* write(value);
  if (pending.length > 0) yield pending;
}

/** A deep copy through the storage encoding: what a store returns is what a file store would. */
export function cloneStorable<T>(value: T): T {
  return decodeStorable(encodeStorable(value)) as T;
}

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

/** A deep copy through the storage encoding: what a store returns is what a file store would. */
export function cloneStorable<T>(value: T): T {
  return decodeStorable(encodeStorable(value)) as T;
}

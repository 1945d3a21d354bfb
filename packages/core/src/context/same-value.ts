/** Deeper values are compared as different (and so counted or converted again), never recursed into. */
const MAX_COMPARE_DEPTH = 64;

/**
 * An object literal or JSON object (or one without a prototype). Reads `constructor` rather than
 * the prototype: about twice as fast over a long prompt, and an object that merely claims to be
 * plain is compared by its enumerable properties, which is all a conversion reads.
 */
function isPlainObject(value: object): boolean {
  const maker = (value as { constructor?: unknown }).constructor;
  return maker === Object || (maker === undefined && Object.getPrototypeOf(value) === null);
}

/**
 * Deep equality of request values (messages, prompts, tool definitions) as a provider reads them:
 * an `undefined` property equals a missing one (hosts write `providerOptions: undefined`), bytes
 * compare by content, URLs by `href`; other class instances and values nested deeper than 64
 * levels compare as different, which only costs a cache miss. Allocates nothing and is cheap when
 * both sides share their strings, as a host's requests of one conversation do: string comparison
 * then stops at the pointer. Lets a cache recognise a request rebuilt from new objects without
 * serialising it.
 */
export function sameValue(left: unknown, right: unknown, depth = 0): boolean {
  if (left === right) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) {
    return false;
  }
  if (depth > MAX_COMPARE_DEPTH) return false;
  // Plain objects first: they are most of a request, and need no `instanceof` walk.
  if (isPlainObject(left)) {
    return (
      isPlainObject(right) &&
      sameRecord(left as Record<string, unknown>, right as Record<string, unknown>, depth)
    );
  }
  if (Array.isArray(left)) {
    if (!Array.isArray(right) || left.length !== right.length) return false;
    for (let index = 0; index < left.length; index++) {
      if (!sameValue(left[index], right[index], depth + 1)) return false;
    }
    return true;
  }
  if (left instanceof Uint8Array) {
    if (!(right instanceof Uint8Array) || left.byteLength !== right.byteLength) return false;
    for (let index = 0; index < left.byteLength; index++) {
      if (left[index] !== right[index]) return false;
    }
    return true;
  }
  if (left instanceof URL) return right instanceof URL && left.href === right.href;
  return false;
}

function sameRecord(
  left: Record<string, unknown>,
  right: Record<string, unknown>,
  depth: number,
): boolean {
  // `for…in` allocates nothing (unlike `Object.keys`), which matters at thousands of messages.
  let leftDefined = 0;
  for (const key in left) {
    const value = left[key];
    if (value === undefined) continue;
    leftDefined++;
    if (!sameValue(value, right[key], depth + 1)) return false;
  }
  let rightDefined = 0;
  for (const key in right) if (right[key] !== undefined) rightDefined++;
  return leftDefined === rightDefined;
}

/**
 * A copy of a request value that `sameValue` finds equal to it and that later changes to the
 * original cannot reach: plain objects, arrays and bytes are copied, everything else (strings,
 * numbers, functions, URLs and other instances) is shared. For a cache that must not trust the
 * caller to leave its objects alone.
 */
export function snapshotValue(value: unknown, depth = 0): unknown {
  if (typeof value !== 'object' || value === null || depth > MAX_COMPARE_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item) => snapshotValue(item, depth + 1));
  if (value instanceof Uint8Array) return value.slice();
  if (!isPlainObject(value)) return value;
  const copy: Record<string, unknown> = {};
  for (const key in value) {
    copy[key] = snapshotValue((value as Record<string, unknown>)[key], depth + 1);
  }
  return copy;
}

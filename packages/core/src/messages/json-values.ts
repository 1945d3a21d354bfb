/**
 * Safe, iterative helpers for the JSON values that travel inside messages (tool inputs, JSON
 * outputs, provider options). Nothing here recurses on the depth of user data: a hostile or
 * broken tool call can nest 10,000 levels deep, and `JSON.stringify` alone overflows the stack at
 * a few thousand.
 */
import { InvalidMessageError } from '../errors/index.js';

/**
 * Deepest nesting of a JSON value inside a message that ctxmem accepts. `JSON.stringify`
 * overflows the call stack at about 4,000 levels (less when called from deep in a stack), and
 * every later step (counting, hashing, sending) stringifies, so deeper values are rejected up
 * front.
 */
export const MAX_MESSAGE_JSON_DEPTH = 1000;

/** A path segment: an array index or an object key. */
export type PathSegment = string | number;

const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Appends segments to a path in JavaScript accessor notation: `messages[3].content[1].input.a`. */
export function joinPath(base: string, ...segments: readonly PathSegment[]): string {
  let path = base;
  for (const segment of segments) {
    if (typeof segment === 'number') path += `[${segment}]`;
    else if (identifier.test(segment)) path += `.${segment}`;
    else path += `[${JSON.stringify(segment)}]`;
  }
  return path;
}

/** A short description of what a value is, for error messages (`null`, `an array`, `a number`). */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number' && Number.isNaN(value)) return 'NaN';
  if (typeof value === 'object') {
    const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
    return typeof name === 'string' && name !== 'Object' ? `a ${name}` : 'an object';
  }
  return `a ${typeof value}`;
}

/** True for `{}`-style objects (not arrays, not class instances such as `Date` or `Map`). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** Binary or URL data that messages may carry besides JSON (`DataContent`). */
export function isBinaryOrUrl(value: unknown): value is Uint8Array | ArrayBuffer | URL {
  return value instanceof Uint8Array || value instanceof ArrayBuffer || value instanceof URL;
}

type WellFormedString = string & { isWellFormed(): boolean; toWellFormed(): string };
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const loneSurrogates = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const hasNativeWellFormed =
  typeof (String.prototype as Partial<WellFormedString>).isWellFormed === 'function';

/** False when the string holds a lone surrogate (invalid UTF-16 that cannot be encoded as UTF-8). */
export function isWellFormedText(text: string): boolean {
  return hasNativeWellFormed
    ? (text as WellFormedString).isWellFormed()
    : !loneSurrogate.test(text);
}

/** Replaces every lone surrogate with U+FFFD. */
export function toWellFormedText(text: string): string {
  return hasNativeWellFormed
    ? (text as WellFormedString).toWellFormed()
    : text.replace(loneSurrogates, '\uFFFD');
}

/** How `inspectJsonValue` treats problems it can fix. */
export interface InspectContext {
  /** Check strings (values and keys) for lone surrogates. */
  checkText: boolean;
  /** Replace lone surrogates with U+FFFD instead of throwing; `onRepair` hears of each. */
  repair: boolean;
  onRepair?: (path: string) => void;
}

interface Frame {
  source: unknown[] | Record<string, unknown>;
  /** Keys of an object being walked; `undefined` for arrays. */
  keys: string[] | undefined;
  position: number;
  /** Copy made on the first changed child (copy-on-write keeps unchanged values identical). */
  copy: unknown[] | Record<string, unknown> | undefined;
  parent: Frame | undefined;
  /** Where the produced value goes in the parent (a repaired key when the key was repaired). */
  segment: PathSegment;
  /** The segment as it was in the input, for paths. */
  pathSegment: PathSegment;
  depth: number;
}

function framePath(base: string, frame: Frame | undefined, ...tail: PathSegment[]): string {
  const segments: PathSegment[] = [];
  for (let current = frame; current?.parent !== undefined; current = current.parent) {
    segments.push(current.pathSegment);
  }
  segments.reverse();
  return joinPath(base, ...segments, ...tail);
}

function invalid(path: string, problem: string): InvalidMessageError {
  return new InvalidMessageError({ message: `${path}: ${problem}`, path });
}

function ensureCopy(frame: Frame): unknown[] | Record<string, unknown> {
  frame.copy ??= Array.isArray(frame.source) ? frame.source.slice() : { ...frame.source };
  return frame.copy;
}

/**
 * Checks that `value` is JSON that survives `JSON.stringify` unchanged: finite numbers, plain
 * objects and arrays, no cycles, no `undefined` in arrays, nesting within
 * `MAX_MESSAGE_JSON_DEPTH`, and (with `checkText`) no lone surrogates. Returns the value itself, or
 * a copy with lone surrogates replaced when repairing. Iterative, so depth cannot overflow the
 * stack. Throws `InvalidMessageError` naming the exact path of the first problem.
 */
export function inspectJsonValue(value: unknown, path: string, context: InspectContext): unknown {
  const leaf = (item: unknown, where: () => string): unknown => {
    switch (typeof item) {
      case 'string':
        if (!context.checkText || isWellFormedText(item)) return item;
        if (!context.repair)
          throw invalid(where(), 'string contains a lone surrogate (invalid UTF-16)');
        context.onRepair?.(where());
        return toWellFormedText(item);
      case 'number':
        if (Number.isFinite(item)) return item;
        throw invalid(where(), `${describeValue(item)} is not a JSON number`);
      case 'boolean':
        return item;
      case 'object':
        if (item === null) return item;
        throw invalid(where(), `${describeValue(item)} is not a JSON value`);
      default:
        throw invalid(where(), `${describeValue(item)} is not a JSON value`);
    }
  };
  const isContainer = (item: unknown): item is unknown[] | Record<string, unknown> =>
    Array.isArray(item) || isPlainObject(item);

  if (!isContainer(value)) return leaf(value, () => path);

  const root: Frame = {
    source: value,
    keys: Array.isArray(value) ? undefined : Object.keys(value),
    position: 0,
    copy: undefined,
    parent: undefined,
    segment: '',
    pathSegment: '',
    depth: 1,
  };
  const active = new Set<unknown>([value]);
  const stack: Frame[] = [root];
  let result: unknown = value;
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    const length = frame.keys ? frame.keys.length : (frame.source as unknown[]).length;
    if (frame.position >= length) {
      stack.pop();
      active.delete(frame.source);
      const produced = frame.copy ?? frame.source;
      if (frame.parent === undefined) {
        result = produced;
      } else if (produced !== frame.source) {
        const target = ensureCopy(frame.parent);
        (target as Record<PathSegment, unknown>)[frame.segment] = produced;
      }
      continue;
    }
    const position = frame.position++;
    let segment: PathSegment = position;
    let pathSegment: PathSegment = position;
    let child: unknown;
    if (frame.keys) {
      const key = frame.keys[position]!;
      segment = key;
      pathSegment = key;
      child = (frame.source as Record<string, unknown>)[key];
      if (child === undefined) continue; // dropped by JSON.stringify, as optional fields are
      if (context.checkText && !isWellFormedText(key)) {
        const where = framePath(path, frame, key);
        if (!context.repair)
          throw invalid(where, 'object key contains a lone surrogate (invalid UTF-16)');
        context.onRepair?.(where);
        const target = ensureCopy(frame) as Record<string, unknown>;
        delete target[key];
        segment = toWellFormedText(key);
        target[segment] = child;
      }
    } else {
      child = (frame.source as unknown[])[position];
      if (child === undefined) {
        throw invalid(framePath(path, frame, position), 'undefined is not a JSON value');
      }
    }
    if (isContainer(child)) {
      if (active.has(child)) {
        throw invalid(framePath(path, frame, pathSegment), 'circular reference');
      }
      if (frame.depth + 1 > MAX_MESSAGE_JSON_DEPTH) {
        throw invalid(
          framePath(path, frame, pathSegment),
          `JSON nested deeper than ${MAX_MESSAGE_JSON_DEPTH} levels`,
        );
      }
      active.add(child);
      stack.push({
        source: child,
        keys: Array.isArray(child) ? undefined : Object.keys(child),
        position: 0,
        copy: undefined,
        parent: frame,
        segment,
        pathSegment,
        depth: frame.depth + 1,
      });
    } else {
      const checked = leaf(child, () => framePath(path, frame, pathSegment));
      if (checked !== child || segment !== (frame.keys ? frame.keys[position] : position)) {
        (ensureCopy(frame) as Record<PathSegment, unknown>)[segment] = checked;
      }
    }
  }
  return result;
}

/** True when `value` nests deeper than `limit` arrays/objects (iterative; stops early). */
export function exceedsJsonDepth(value: unknown, limit: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  const stack: Array<{ item: unknown; depth: number }> = [{ item: value, depth: 1 }];
  while (stack.length > 0) {
    const { item, depth } = stack.pop()!;
    if (depth > limit) return true;
    const children = Array.isArray(item) ? item : Object.values(item as object);
    for (const child of children) {
      if (child !== null && typeof child === 'object')
        stack.push({ item: child, depth: depth + 1 });
    }
  }
  return false;
}

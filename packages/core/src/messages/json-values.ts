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

/** How `inspectJsonValue` treats problems it can fix, and which values besides JSON it accepts. */
export interface InspectContext {
  /** Check strings (values and keys) for lone surrogates. */
  checkText: boolean;
  /** Replace lone surrogates with U+FFFD instead of throwing; `onRepair` hears of each. */
  repair: boolean;
  onRepair?: (path: string) => void;
  /**
   * Accept bytes and URLs (`Uint8Array`, `ArrayBuffer`, `URL`) as values, as the data of image
   * and file parts may be.
   * @default false
   */
  binaryData?: boolean;
  /** The deepest nesting accepted. @default MAX_MESSAGE_JSON_DEPTH */
  maxDepth?: number;
}

/**
 * A description of the entry at `index` of `list` for error messages: `describeValue` of it, or
 * what a hole of a sparse array is (`[a, , b]`), which reads as `undefined` but is no entry at all.
 */
export function describeEntry(list: readonly unknown[], index: number): string {
  return index in list ? describeValue(list[index]) : 'an empty slot (the array has a hole)';
}

/** The message of an error thrown while reading a value (a getter, a proxy trap). */
export function describeThrown(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  try {
    return String(error);
  } catch {
    return typeof error;
  }
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
  /** Levels of containers in this one's subtree, itself included (1 when it holds none). */
  height: number;
}

/** A container walked to its end: what it became, and how deep it nests. */
interface Walked {
  produced: unknown;
  height: number;
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

function unreadable(path: string, error: unknown): InvalidMessageError {
  return new InvalidMessageError({
    message: `${path}: reading it threw (${describeThrown(error)})`,
    path,
    cause: error,
  });
}

function ensureCopy(frame: Frame): unknown[] | Record<string, unknown> {
  frame.copy ??= Array.isArray(frame.source) ? frame.source.slice() : { ...frame.source };
  return frame.copy;
}

const isContainer = (item: unknown): item is unknown[] | Record<string, unknown> =>
  Array.isArray(item) || isPlainObject(item);

/**
 * Checks that `value` is JSON that survives `JSON.stringify` unchanged: finite numbers, plain
 * objects and arrays, no cycles, no `undefined` or holes in arrays, no getters that throw, nesting
 * within `MAX_MESSAGE_JSON_DEPTH`, and (with `checkText`) no lone surrogates. `ancestors` are the
 * objects `value` sits in (its message, part…): a reference back to one of them is a cycle too.
 * Returns the value itself, or a copy with lone surrogates replaced when repairing. Throws
 * `InvalidMessageError` naming the exact path of the first problem.
 *
 * One pass, linear in the distinct containers and keys: strings are not scanned unless
 * `checkText` asks for it, an object reached twice (shared, not circular) is walked once, and
 * the walk is iterative, so depth cannot overflow the stack.
 */
export function inspectJsonValue(
  value: unknown,
  path: string,
  context: InspectContext,
  ancestors: readonly object[] = [],
): unknown {
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
        if (context.binaryData === true && isBinaryOrUrl(item)) return item;
        throw invalid(where(), `${describeValue(item)} is not a JSON value`);
      default:
        throw invalid(where(), `${describeValue(item)} is not a JSON value`);
    }
  };
  const open = (
    source: unknown[] | Record<string, unknown>,
    parent: Frame | undefined,
    segment: PathSegment,
    pathSegment: PathSegment,
  ): Frame => {
    let keys: string[] | undefined;
    try {
      keys = Array.isArray(source) ? undefined : Object.keys(source);
    } catch (error) {
      throw unreadable(framePath(path, parent, ...(parent ? [pathSegment] : [])), error);
    }
    return {
      source,
      keys,
      position: 0,
      copy: undefined,
      parent,
      segment,
      pathSegment,
      depth: parent ? parent.depth + 1 : 1,
      height: 1,
    };
  };

  let rootIsContainer: boolean;
  try {
    rootIsContainer = isContainer(value);
  } catch (error) {
    throw unreadable(path, error);
  }
  if (!rootIsContainer) return leaf(value, () => path);
  if (ancestors.includes(value as object)) throw invalid(path, 'circular reference');

  /** The containers on the path being walked: meeting one again is a cycle. */
  const { maxDepth = MAX_MESSAGE_JSON_DEPTH } = context;
  const active = new Set<unknown>(ancestors);
  /** Containers walked to their end: meeting one again (shared, not circular) reuses the walk. */
  const walked = new Map<unknown, Walked>();
  active.add(value);
  const stack: Frame[] = [open(value as unknown[] | Record<string, unknown>, undefined, '', '')];
  let result: unknown = value;
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    const length = frame.keys ? frame.keys.length : (frame.source as unknown[]).length;
    if (frame.position >= length) {
      stack.pop();
      active.delete(frame.source);
      const produced = frame.copy ?? frame.source;
      walked.set(frame.source, { produced, height: frame.height });
      const parent = frame.parent;
      if (parent === undefined) {
        result = produced;
      } else {
        if (frame.height + 1 > parent.height) parent.height = frame.height + 1;
        if (produced !== frame.source) {
          (ensureCopy(parent) as Record<PathSegment, unknown>)[frame.segment] = produced;
        }
      }
      continue;
    }
    const position = frame.position++;
    let segment: PathSegment = position;
    let pathSegment: PathSegment = position;
    let child: unknown;
    let childIsContainer: boolean;
    try {
      if (frame.keys) {
        const key = frame.keys[position]!;
        segment = key;
        pathSegment = key;
        child = (frame.source as Record<string, unknown>)[key];
      } else {
        child = (frame.source as unknown[])[position];
      }
      childIsContainer = isContainer(child);
    } catch (error) {
      throw unreadable(framePath(path, frame, pathSegment), error);
    }
    if (frame.keys) {
      if (child === undefined) continue; // dropped by JSON.stringify, as optional fields are
      const key = segment as string;
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
    } else if (child === undefined) {
      throw invalid(
        framePath(path, frame, position),
        position in frame.source
          ? 'undefined is not a JSON value'
          : 'an empty slot (the array has a hole) is not a JSON value',
      );
    }
    if (childIsContainer) {
      if (active.has(child)) {
        throw invalid(framePath(path, frame, pathSegment), 'circular reference');
      }
      const known = walked.get(child);
      const height = known?.height ?? 1;
      if (frame.depth + height > maxDepth) {
        throw invalid(
          framePath(path, frame, pathSegment),
          `JSON nested deeper than ${maxDepth} levels`,
        );
      }
      if (known === undefined) {
        active.add(child);
        stack.push(open(child as unknown[] | Record<string, unknown>, frame, segment, pathSegment));
        continue;
      }
      if (height + 1 > frame.height) frame.height = height + 1;
      if (known.produced !== child || segment !== pathSegment) {
        (ensureCopy(frame) as Record<PathSegment, unknown>)[segment] = known.produced;
      }
    } else {
      const checked = leaf(child, () => framePath(path, frame, pathSegment));
      if (checked !== child || segment !== pathSegment) {
        (ensureCopy(frame) as Record<PathSegment, unknown>)[segment] = checked;
      }
    }
  }
  return result;
}

/** Levels of a body above a message's values (body, messages, message, content, part, output…). */
const ENVELOPE_LEVELS = 16;

/**
 * Checks that `value` is plain JSON data, as a request body or a stored message must be, and
 * throws `InvalidMessageError` naming the path of the first value that is not: a circular
 * reference, a BigInt, a function or symbol, `NaN` or `Infinity`, a class instance (a `Date`, a
 * `Map`), `undefined` or a hole in an array, a getter that throws, or nesting deeper than
 * `MAX_MESSAGE_JSON_DEPTH`. With `binaryData`, bytes and URLs are accepted as values (the data of
 * image and file parts). One linear pass; strings are not scanned.
 *
 * Meant for what holds messages (a request body, a message list): the depth limit leaves room
 * for the levels above a message's own values, whose depth the message check decides.
 */
export function checkJsonValue(
  value: unknown,
  path: string,
  { binaryData = false }: { binaryData?: boolean } = {},
): void {
  const maxDepth = MAX_MESSAGE_JSON_DEPTH + ENVELOPE_LEVELS;
  // Most input is plainly JSON (often straight from JSON.parse): a quick pass proves it. Anything
  // it cannot vouch for (an object met twice, a bad value, a getter that throws) is walked again
  // by the exact check, which names the path or accepts a shared (not circular) object.
  if (isPlainJson(value, binaryData, maxDepth)) return;
  inspectJsonValue(value, path, { checkText: false, repair: false, binaryData, maxDepth });
}

/** Containers the quick pass visits before it leaves the rest to the exact check. */
const PLAIN_JSON_VISITS = 1_000_000;

/**
 * True when `value` is certainly JSON: plain objects and arrays, strings, finite numbers,
 * booleans, null (and bytes and URLs with `binaryData`), within `maxDepth`. No paths, copies,
 * frames or sets (an identity set costs more than the rest of the walk on fresh objects, which
 * get their identity hash on first use): a cycle shows as nesting past `maxDepth`, and a value
 * that shares its objects so much that it takes more than `PLAIN_JSON_VISITS` visits goes to the
 * exact check, which walks each object once. False does not mean invalid, only "check exactly".
 */
function isPlainJson(value: unknown, binaryData: boolean, maxDepth: number): boolean {
  const stack: unknown[] = [value];
  const depths: number[] = [1];
  let visits = 0;
  try {
    while (stack.length > 0) {
      const item = stack.pop();
      const depth = depths.pop()!;
      if (typeof item !== 'object' || item === null) {
        if (!isJsonLeaf(item)) return false;
        continue;
      }
      if (depth > maxDepth || ++visits > PLAIN_JSON_VISITS) return false;
      if (Array.isArray(item)) {
        for (let index = 0; index < item.length; index++) {
          const child = item[index];
          if (typeof child === 'object' && child !== null) {
            stack.push(child);
            depths.push(depth + 1);
          } else if (!isJsonLeaf(child)) return false;
        }
        continue;
      }
      const prototype = Object.getPrototypeOf(item);
      if (prototype !== Object.prototype && prototype !== null) {
        if (binaryData && isBinaryOrUrl(item)) continue;
        return false;
      }
      for (const key in item) {
        const child = (item as Record<string, unknown>)[key];
        if (typeof child === 'object' && child !== null) {
          stack.push(child);
          depths.push(depth + 1);
        } else if (child !== undefined && !isJsonLeaf(child)) return false;
      }
    }
    return true;
  } catch {
    return false;
  }
}

function isJsonLeaf(item: unknown): boolean {
  switch (typeof item) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(item);
    default:
      return item === null;
  }
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

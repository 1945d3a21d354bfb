/**
 * File-system fault injection for the storage tests. A test file mocks `node:fs/promises` and
 * `write-file-atomic` with the wrappers below (see `storage-faults.test.ts`); the wrappers pass
 * every call through until a rule says otherwise, then fail it the way the kernel does (an
 * `Error` with `code`, `syscall` and `path`), optionally after writing part of the data — a disk
 * that fills up in the middle of a write.
 *
 * This module must not import `node:fs/promises` itself: it is loaded by the mock factory.
 */

/** The `node:fs/promises` functions a rule can target, plus the file-handle methods. */
export type FaultOperation =
  | 'open'
  | 'readFile'
  | 'writeFile'
  | 'mkdir'
  | 'stat'
  | 'readdir'
  | 'rm'
  | 'copyFile'
  | 'rename'
  | 'handle.write'
  | 'handle.read'
  | 'handle.readFile'
  | 'handle.sync'
  | 'handle.truncate'
  | 'atomic-write';

export interface FaultRule {
  operation: FaultOperation;
  /** `ENOSPC`, `EACCES`, `EIO`, ... */
  code: string;
  /** Only paths matching this fail. @default every path */
  path?: RegExp;
  /** Fail this many calls, then pass again. @default Infinity */
  times?: number;
  /** For `handle.write`: write this many bytes for real before failing. @default 0 */
  partialBytes?: number;
}

interface ActiveRule extends FaultRule {
  remaining: number;
}

const rules: ActiveRule[] = [];
/** Every injected failure, for assertions that the fault really happened. */
export const injected: Array<{ operation: FaultOperation; path: string; code: string }> = [];

/** Adds a rule; returns a function that removes it. */
export function injectFault(rule: FaultRule): () => void {
  const active: ActiveRule = { ...rule, remaining: rule.times ?? Number.POSITIVE_INFINITY };
  rules.push(active);
  return () => {
    const index = rules.indexOf(active);
    if (index !== -1) rules.splice(index, 1);
  };
}

/** Removes every rule and forgets the recorded failures. */
export function clearFaults(): void {
  rules.length = 0;
  injected.length = 0;
}

function systemError(code: string, syscall: string, path: string): NodeJS.ErrnoException {
  const messages: Record<string, string> = {
    ENOSPC: 'no space left on device',
    EACCES: 'permission denied',
    EIO: 'i/o error',
    EROFS: 'read-only file system',
  };
  return Object.assign(new Error(`${code}: ${messages[code] ?? 'failure'}, ${syscall} '${path}'`), {
    code,
    syscall,
    path,
  });
}

/** The rule that fails this call, consuming one of its failures. */
function take(operation: FaultOperation, path: string): ActiveRule | undefined {
  const rule = rules.find(
    (candidate) =>
      candidate.operation === operation &&
      candidate.remaining > 0 &&
      (candidate.path === undefined || candidate.path.test(path)),
  );
  if (!rule) return undefined;
  rule.remaining--;
  injected.push({ operation, path, code: rule.code });
  return rule;
}

function pathOf(argument: unknown): string {
  if (typeof argument === 'string') return argument;
  if (argument instanceof URL) return argument.pathname;
  if (Buffer.isBuffer(argument)) return argument.toString();
  return String(argument);
}

type AnyFunction = (...args: never[]) => unknown;

// biome-ignore lint/suspicious/noExplicitAny: a file handle is wrapped method by method.
function wrapHandle(handle: any, path: string): unknown {
  const check = (operation: FaultOperation) => {
    const rule = take(operation, path);
    if (rule) throw systemError(rule.code, operation.replace('handle.', ''), path);
  };
  return new Proxy(handle, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      switch (property) {
        case 'write':
          return async (buffer: Uint8Array | string, ...rest: unknown[]) => {
            const rule = take('handle.write', path);
            if (!rule) return value.call(target, buffer, ...rest);
            const partial = rule.partialBytes ?? 0;
            if (partial > 0 && typeof buffer !== 'string') {
              const offset = typeof rest[0] === 'number' ? rest[0] : 0;
              const length = typeof rest[1] === 'number' ? rest[1] : buffer.length - offset;
              await value.call(target, buffer, offset, Math.min(length, partial));
            }
            throw systemError(rule.code, 'write', path);
          };
        case 'read':
        case 'readFile':
        case 'sync':
        case 'truncate':
          return async (...args: unknown[]) => {
            check(`handle.${property}` as FaultOperation);
            return value.apply(target, args);
          };
        default:
          return value.bind(target);
      }
    },
  });
}

const WRAPPED: readonly FaultOperation[] = [
  'open',
  'readFile',
  'writeFile',
  'mkdir',
  'stat',
  'readdir',
  'rm',
  'copyFile',
  'rename',
];

/** `node:fs/promises` with fault injection; pass the real module. */
export function withFaults<Module extends Record<string, unknown>>(actual: Module): Module {
  const wrapped: Record<string, unknown> = { ...actual };
  for (const operation of WRAPPED) {
    const original = actual[operation] as AnyFunction | undefined;
    if (typeof original !== 'function') continue;
    wrapped[operation] = async (...args: unknown[]) => {
      const path = pathOf(args[0]);
      const rule = take(operation, path);
      if (rule) throw systemError(rule.code, operation, path);
      const result = await (original as (...inner: unknown[]) => Promise<unknown>)(...args);
      return operation === 'open' ? wrapHandle(result, path) : result;
    };
  }
  return { ...wrapped, default: wrapped } as unknown as Module;
}

/** The default export of `write-file-atomic` with fault injection (operation `atomic-write`). */
export function withAtomicWriteFaults<Write extends (...args: never[]) => Promise<unknown>>(
  actual: Write,
): Write {
  return (async (...args: unknown[]) => {
    const path = pathOf(args[0]);
    const rule = take('atomic-write', path);
    if (rule) throw systemError(rule.code, 'write', path);
    return (actual as unknown as (...inner: unknown[]) => Promise<unknown>)(...args);
  }) as unknown as Write;
}

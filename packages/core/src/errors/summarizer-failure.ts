import type { SummarizerFailureKind } from '../contracts/index.js';
import { SummarizerError } from './summarizer-error.js';

/** A class name as JavaScript spells one; anything else is not trusted to be free of content. */
const CLASS_NAME = /^[A-Za-z_$][\w$]{0,63}$/;

/** Causes followed at most, so a cyclic chain cannot loop. */
const MAX_CAUSES = 8;

/**
 * The name of an error's class: its `name` when that says more than `Error` (`TimeoutError`,
 * `CtxmemSummarizerError`), else its constructor's (an SDK's `APIError` that leaves `name` alone),
 * else `Error`; `typeof` for a thrown non-object. Only identifiers are returned, never text.
 */
export function errorClassOf(error: unknown): string {
  if (typeof error !== 'object' || error === null) return typeof error;
  const { name } = error as { name?: unknown };
  if (typeof name === 'string' && name !== 'Error' && CLASS_NAME.test(name)) return name;
  const constructorName = (error as { constructor?: { name?: unknown } }).constructor?.name;
  if (typeof constructorName === 'string' && CLASS_NAME.test(constructorName)) {
    return constructorName === 'Object' ? 'Error' : constructorName;
  }
  return 'Error';
}

/**
 * Why a summarizer failed, from the error's type alone (never its message, which can quote the
 * conversation): a `SummarizerError`'s `kind` and the class of the error it wraps, a bare
 * `TimeoutError` or `AbortError` by name, anything else `error` with its class.
 */
export function summarizerFailureOf(error: unknown): {
  kind: SummarizerFailureKind;
  errorClass: string;
} {
  if (SummarizerError.isInstance(error)) {
    let cause: unknown = error.cause;
    for (let depth = 0; depth < MAX_CAUSES && SummarizerError.isInstance(cause); depth++) {
      cause = cause.cause;
    }
    const wrapped = typeof cause === 'object' && cause !== null;
    return { kind: error.kind, errorClass: errorClassOf(wrapped ? cause : error) };
  }
  const errorClass = errorClassOf(error);
  if (errorClass === 'TimeoutError') return { kind: 'timeout', errorClass };
  if (errorClass === 'AbortError') return { kind: 'aborted', errorClass };
  return { kind: 'error', errorClass };
}

/** What every ctxmem error takes: a message for people and, when there is one, the error behind it. */
export interface CtxmemErrorOptions {
  message: string;
  cause?: unknown;
}

function markerOf(errorName: string): symbol {
  if (errorName === 'CtxmemError') return Symbol.for('ctxmem.error');
  // A class may also name its marker in full (`ctxmem.error.CtxmemXError`).
  return Symbol.for(errorName.startsWith('ctxmem.error') ? errorName : `ctxmem.error.${errorName}`);
}

function hasMarkerOf(error: unknown, errorName: string): boolean {
  const marker = markerOf(errorName);
  return (
    error != null &&
    typeof error === 'object' &&
    marker in error &&
    (error as Record<symbol, unknown>)[marker] === true
  );
}

/**
 * Base class of every error ctxmem throws. A subclass declares its `errorName`, its own fields and
 * its `isInstance`:
 *
 * ```ts
 * class NotFoundError extends CtxmemError<{ id: string }> {
 *   static override readonly errorName = 'CtxmemNotFoundError';
 *   declare readonly id: string;
 *   static override readonly isInstance = CtxmemError.markerGuard<NotFoundError>(this);
 * }
 * ```
 *
 * The constructor copies every option other than `message` and `cause` onto the error (the
 * subclass's `Fields`, declared with `declare` so no field initializer overwrites them) and marks
 * the error with a global symbol per class in its chain; each class's `isInstance` checks its
 * marker instead of `instanceof`, so it still works when two copies of the package are installed
 * side by side.
 */
export class CtxmemError<Fields extends object = Record<never, never>> extends Error {
  /** The `name` of this class's errors, and the key of its marker. */
  static readonly errorName: string = 'CtxmemError';

  override readonly name: string;
  override readonly cause?: unknown;

  constructor(options: CtxmemErrorOptions & { name?: string } & Fields) {
    // Building an error must not fail: without options it is an error without a message.
    const { message, cause, name, ...fields } =
      options ?? ({} as CtxmemErrorOptions & { name?: string } & Fields);
    super(message);
    const errorClass = new.target as unknown as typeof CtxmemError;
    this.name = name ?? errorClass.errorName;
    this.cause = cause;
    Object.assign(this, fields);
    for (
      let current: unknown = errorClass;
      typeof current === 'function' && current !== Error;
      current = Object.getPrototypeOf(current)
    ) {
      if (Object.hasOwn(current, 'errorName')) {
        const { errorName } = current as typeof CtxmemError;
        Object.defineProperty(this, markerOf(errorName), { value: true });
      }
    }
  }

  /** Whether `error` is a ctxmem error, from any copy of ctxmem. Safe to pass unbound (`errors.filter(CtxmemError.isInstance)`). */
  static isInstance(error: unknown): error is CtxmemError {
    return hasMarkerOf(error, CtxmemError.errorName);
  }

  /**
   * The `isInstance` of an error class: a function, safe to pass unbound, that tells whether an
   * error carries the class's marker (so also an error made by another copy of ctxmem).
   */
  protected static markerGuard<Instance>(errorClass: {
    readonly errorName: string;
  }): (error: unknown) => error is Instance {
    return (error: unknown): error is Instance => hasMarkerOf(error, errorClass.errorName);
  }
}

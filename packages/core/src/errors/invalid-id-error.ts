import { CtxmemError, type CtxmemErrorOptions } from './ctxmem-error.js';

/** An id that ends up in a file path or key is unsafe (traversal, absolute path, NUL, too long). */
export class InvalidIdError extends CtxmemError {
  static override readonly errorName = 'CtxmemInvalidIdError';
  /** The rejected id (truncated for display). */
  readonly id: string;

  constructor({ id, ...options }: CtxmemErrorOptions & { id: string }) {
    super(options);
    this.id = id;
  }

  static override isInstance(error: unknown): error is InvalidIdError {
    return CtxmemError.hasMarker(error, InvalidIdError.errorName);
  }
}

import { CtxmemError } from './ctxmem-error.js';

/** An id that ends up in a file path or key is unsafe (traversal, absolute path, NUL, too long). */
export class InvalidIdError extends CtxmemError<{ id: string }> {
  static override readonly errorName = 'CtxmemInvalidIdError';
  /** The rejected id (truncated for display). */
  declare readonly id: string;

  static override readonly isInstance = CtxmemError.markerGuard<InvalidIdError>(this);
}

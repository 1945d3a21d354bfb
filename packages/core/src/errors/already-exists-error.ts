import { CtxmemError } from './ctxmem-error.js';

/**
 * What a call would create already exists in this scope: a memory file at the path of a
 * `create`, or the destination of a `rename`.
 */
export class AlreadyExistsError extends CtxmemError<{ id: string }> {
  static override readonly errorName = 'CtxmemAlreadyExistsError';
  /** What exists already (a memory file's path). */
  declare readonly id: string;

  static override readonly isInstance = CtxmemError.markerGuard<AlreadyExistsError>(this);
}

import { CtxmemError } from './ctxmem-error.js';

/** A requested record (offload id, turn number, card id) does not exist in this scope. */
export class NotFoundError extends CtxmemError<{ id: string }> {
  static override readonly errorName = 'CtxmemNotFoundError';
  /** What was looked up. */
  declare readonly id: string;

  static override readonly isInstance = CtxmemError.markerGuard<NotFoundError>(this);
}

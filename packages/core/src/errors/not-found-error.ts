import { CtxmemError, type CtxmemErrorOptions } from './ctxmem-error.js';

/** A requested record (offload id, turn number, card id) does not exist in this scope. */
export class NotFoundError extends CtxmemError {
  static override readonly errorName = 'CtxmemNotFoundError';
  /** What was looked up. */
  readonly id: string;

  constructor({ id, ...options }: CtxmemErrorOptions & { id: string }) {
    super(options);
    this.id = id;
  }

  static override isInstance(error: unknown): error is NotFoundError {
    return CtxmemError.hasMarker(error, NotFoundError.errorName);
  }
}

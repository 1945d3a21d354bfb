import { CtxmemError } from './ctxmem-error.js';

/** An option or argument is out of range (for example a NaN, zero or negative budget). */
export class InvalidArgumentError extends CtxmemError<{ argument: string }> {
  static override readonly errorName = 'CtxmemInvalidArgumentError';
  /** The name of the offending option. */
  declare readonly argument: string;

  static override readonly isInstance = CtxmemError.markerGuard<InvalidArgumentError>(this);
}

import { CtxmemError, type CtxmemErrorOptions } from './ctxmem-error.js';

/** An optimistic update lost a race: the stored version changed since it was read. */
export class ConflictError extends CtxmemError {
  static override readonly errorName = 'CtxmemConflictError';
  /** The version the writer expected. */
  readonly expectedVersion: number;
  /** The version found in the store. */
  readonly actualVersion: number;

  constructor({
    expectedVersion,
    actualVersion,
    ...options
  }: CtxmemErrorOptions & { expectedVersion: number; actualVersion: number }) {
    super(options);
    this.expectedVersion = expectedVersion;
    this.actualVersion = actualVersion;
  }

  static override isInstance(error: unknown): error is ConflictError {
    return CtxmemError.hasMarker(error, ConflictError.errorName);
  }
}

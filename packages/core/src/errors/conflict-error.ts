import { CtxmemError, type CtxmemErrorOptions } from './ctxmem-error.js';

/**
 * An optimistic update lost a race: the stored version changed since it was read. For a
 * positional history append, the versions are history lengths (`at` and the stored count) and
 * `position` names the first position where the stored history and the appended messages differ.
 */
export class ConflictError extends CtxmemError {
  static override readonly errorName = 'CtxmemConflictError';
  /** The version the writer expected. */
  readonly expectedVersion: number;
  /** The version found in the store. */
  readonly actualVersion: number;
  /** For a positional history append: the position of the conflict (a different message, or the first missing one). */
  readonly position: number | undefined;

  constructor({
    expectedVersion,
    actualVersion,
    position,
    ...options
  }: CtxmemErrorOptions & { expectedVersion: number; actualVersion: number; position?: number }) {
    super(options);
    this.expectedVersion = expectedVersion;
    this.actualVersion = actualVersion;
    this.position = position;
  }

  static override isInstance(error: unknown): error is ConflictError {
    return CtxmemError.hasMarker(error, ConflictError.errorName);
  }
}

import { CtxmemError } from './ctxmem-error.js';

/**
 * An optimistic update lost a race: the stored version changed since it was read. For a
 * positional history append, the versions are history lengths (`at` and the stored count) and
 * `position` names the first position where the stored history and the appended messages differ.
 */
export class ConflictError extends CtxmemError<{
  expectedVersion: number;
  actualVersion: number;
  position?: number;
}> {
  static override readonly errorName = 'CtxmemConflictError';
  /** The version the writer expected. */
  declare readonly expectedVersion: number;
  /** The version found in the store. */
  declare readonly actualVersion: number;
  /** For a positional history append: the position of the conflict (a different message, or the first missing one). */
  declare readonly position: number | undefined;

  static override readonly isInstance = CtxmemError.markerGuard<ConflictError>(this);
}

import { CtxmemError } from './ctxmem-error.js';

/** A multi-user store was used without the scope field it requires. */
export class ScopeRequiredError extends CtxmemError<{ field: string }> {
  static override readonly errorName = 'CtxmemScopeRequiredError';
  /** The scope field that is missing, for example `userId`. */
  declare readonly field: string;

  static override readonly isInstance = CtxmemError.markerGuard<ScopeRequiredError>(this);
}

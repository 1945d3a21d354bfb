import { CtxmemError, type CtxmemErrorOptions } from './ctxmem-error.js';

/** A multi-user store was used without the scope field it requires. */
export class ScopeRequiredError extends CtxmemError {
  static override readonly errorName = 'CtxmemScopeRequiredError';
  /** The scope field that is missing, for example `userId`. */
  readonly field: string;

  constructor({ field, ...options }: CtxmemErrorOptions & { field: string }) {
    super(options);
    this.field = field;
  }

  static override isInstance(error: unknown): error is ScopeRequiredError {
    return CtxmemError.hasMarker(error, ScopeRequiredError.errorName);
  }
}

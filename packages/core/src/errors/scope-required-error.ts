import { CtxmemError } from './ctxmem-error.js';

const name = 'CtxmemScopeRequiredError';
const marker = `ctxmem.error.${name}`;
const symbol = Symbol.for(marker);

/** A multi-user store was used without the scope field it requires. */
export class ScopeRequiredError extends CtxmemError {
  private readonly [symbol] = true;
  /** The scope field that is missing, for example `userId`. */
  readonly field: string;

  constructor({
    message,
    cause,
    field,
  }: {
    message: string;
    cause?: unknown;
    field: string;
  }) {
    super({ name, message, cause });
    this.field = field;
  }

  static override isInstance(error: unknown): error is ScopeRequiredError {
    return CtxmemError.hasMarker(error, marker);
  }
}

import { CtxmemError, type CtxmemErrorOptions } from './ctxmem-error.js';

/** An option or argument is out of range (for example a NaN, zero or negative budget). */
export class InvalidArgumentError extends CtxmemError {
  static override readonly errorName = 'CtxmemInvalidArgumentError';
  /** The name of the offending option. */
  readonly argument: string;

  constructor({ argument, ...options }: CtxmemErrorOptions & { argument: string }) {
    super(options);
    this.argument = argument;
  }

  static override isInstance(error: unknown): error is InvalidArgumentError {
    return CtxmemError.hasMarker(error, InvalidArgumentError.errorName);
  }
}

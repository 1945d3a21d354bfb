import { CtxmemError } from './ctxmem-error.js';

const name = 'CtxmemInvalidArgumentError';
const marker = `ctxmem.error.${name}`;
const symbol = Symbol.for(marker);

/** An option or argument is out of range (for example a NaN, zero or negative budget). */
export class InvalidArgumentError extends CtxmemError {
  private readonly [symbol] = true;
  /** The name of the offending option. */
  readonly argument: string;

  constructor({
    message,
    cause,
    argument,
  }: {
    message: string;
    cause?: unknown;
    argument: string;
  }) {
    super({ name, message, cause });
    this.argument = argument;
  }

  static override isInstance(error: unknown): error is InvalidArgumentError {
    return CtxmemError.hasMarker(error, marker);
  }
}

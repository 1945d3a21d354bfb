import { CtxmemError } from './ctxmem-error.js';

const name = 'CtxmemInvalidIdError';
const marker = `ctxmem.error.${name}`;
const symbol = Symbol.for(marker);

/** An id that ends up in a file path or key is unsafe (traversal, absolute path, NUL, too long). */
export class InvalidIdError extends CtxmemError {
  private readonly [symbol] = true;
  /** The rejected id (truncated for display). */
  readonly id: string;

  constructor({
    message,
    cause,
    id,
  }: {
    message: string;
    cause?: unknown;
    id: string;
  }) {
    super({ name, message, cause });
    this.id = id;
  }

  static override isInstance(error: unknown): error is InvalidIdError {
    return CtxmemError.hasMarker(error, marker);
  }
}

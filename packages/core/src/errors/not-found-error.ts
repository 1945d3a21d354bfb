import { CtxmemError } from './ctxmem-error.js';

const name = 'CtxmemNotFoundError';
const marker = `ctxmem.error.${name}`;
const symbol = Symbol.for(marker);

/** A requested record (offload id, turn number, card id) does not exist in this scope. */
export class NotFoundError extends CtxmemError {
  private readonly [symbol] = true;
  /** What was looked up. */
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

  static override isInstance(error: unknown): error is NotFoundError {
    return CtxmemError.hasMarker(error, marker);
  }
}

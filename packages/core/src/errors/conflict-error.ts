import { CtxmemError } from './ctxmem-error.js';

const name = 'CtxmemConflictError';
const marker = `ctxmem.error.${name}`;
const symbol = Symbol.for(marker);

/** An optimistic update lost a race: the stored version changed since it was read. */
export class ConflictError extends CtxmemError {
  private readonly [symbol] = true;
  /** The version the writer expected. */
  readonly expectedVersion: number;
  /** The version found in the store. */
  readonly actualVersion: number;

  constructor({
    message,
    cause,
    expectedVersion,
    actualVersion,
  }: {
    message: string;
    cause?: unknown;
    expectedVersion: number;
    actualVersion: number;
  }) {
    super({ name, message, cause });
    this.expectedVersion = expectedVersion;
    this.actualVersion = actualVersion;
  }

  static override isInstance(error: unknown): error is ConflictError {
    return CtxmemError.hasMarker(error, marker);
  }
}

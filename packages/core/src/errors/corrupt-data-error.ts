import { CtxmemError } from './ctxmem-error.js';

const name = 'CtxmemCorruptDataError';
const marker = `ctxmem.error.${name}`;
const symbol = Symbol.for(marker);

/** Stored data is unreadable. The readable records were recovered and the damaged file kept aside. */
export class CorruptDataError extends CtxmemError {
  private readonly [symbol] = true;
  /** The damaged file or key. */
  readonly path: string | undefined;
  /** How many records could still be read. */
  readonly recoveredRecords: number;

  constructor({
    message,
    cause,
    path,
    recoveredRecords,
  }: {
    message: string;
    cause?: unknown;
    path: string | undefined;
    recoveredRecords: number;
  }) {
    super({ name, message, cause });
    this.path = path;
    this.recoveredRecords = recoveredRecords;
  }

  static override isInstance(error: unknown): error is CorruptDataError {
    return CtxmemError.hasMarker(error, marker);
  }
}

import { CtxmemError, type CtxmemErrorOptions } from './ctxmem-error.js';

/** Stored data is unreadable. The readable records were recovered and the damaged file kept aside. */
export class CorruptDataError extends CtxmemError {
  static override readonly errorName = 'CtxmemCorruptDataError';
  /** The damaged file or key. */
  readonly path: string | undefined;
  /** How many records could still be read. */
  readonly recoveredRecords: number;

  constructor({
    path,
    recoveredRecords,
    ...options
  }: CtxmemErrorOptions & { path: string | undefined; recoveredRecords: number }) {
    super(options);
    this.path = path;
    this.recoveredRecords = recoveredRecords;
  }

  static override isInstance(error: unknown): error is CorruptDataError {
    return CtxmemError.hasMarker(error, CorruptDataError.errorName);
  }
}

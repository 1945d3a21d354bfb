import { CtxmemError } from './ctxmem-error.js';

/** Stored data is unreadable. The readable records were recovered and the damaged file kept aside. */
export class CorruptDataError extends CtxmemError<{
  path: string | undefined;
  recoveredRecords: number;
}> {
  static override readonly errorName = 'CtxmemCorruptDataError';
  /** The damaged file or key. */
  declare readonly path: string | undefined;
  /** How many records could still be read. */
  declare readonly recoveredRecords: number;

  static override readonly isInstance = CtxmemError.markerGuard<CorruptDataError>(this);
}

import { CtxmemError } from './ctxmem-error.js';

/** A store could not read or write its backing storage (disk full, permission denied, ...). */
export class StorageError extends CtxmemError<{ path: string | undefined }> {
  static override readonly errorName = 'CtxmemStorageError';
  /** The file or key involved, when there is one. */
  declare readonly path: string | undefined;

  static override readonly isInstance = CtxmemError.markerGuard<StorageError>(this);
}

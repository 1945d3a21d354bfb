import { CtxmemError, type CtxmemErrorOptions } from './ctxmem-error.js';

/** A store could not read or write its backing storage (disk full, permission denied, ...). */
export class StorageError extends CtxmemError {
  static override readonly errorName = 'CtxmemStorageError';
  /** The file or key involved, when there is one. */
  readonly path: string | undefined;

  constructor({ path, ...options }: CtxmemErrorOptions & { path: string | undefined }) {
    super(options);
    this.path = path;
  }

  static override isInstance(error: unknown): error is StorageError {
    return CtxmemError.hasMarker(error, StorageError.errorName);
  }
}

import { CtxmemError } from './ctxmem-error.js';

const name = 'CtxmemStorageError';
const marker = `ctxmem.error.${name}`;
const symbol = Symbol.for(marker);

/** A store could not read or write its backing storage (disk full, permission denied, ...). */
export class StorageError extends CtxmemError {
  private readonly [symbol] = true;
  /** The file or key involved, when there is one. */
  readonly path: string | undefined;

  constructor({
    message,
    cause,
    path,
  }: {
    message: string;
    cause?: unknown;
    path: string | undefined;
  }) {
    super({ name, message, cause });
    this.path = path;
  }

  static override isInstance(error: unknown): error is StorageError {
    return CtxmemError.hasMarker(error, marker);
  }
}

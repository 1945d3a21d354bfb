import { CtxmemError, StorageError } from '../errors/index.js';

/** A Node.js system error (`fs` rejects with these). */
export interface NodeSystemError extends Error {
  code: string;
  syscall?: string;
  path?: string;
}

export function isNodeSystemError(error: unknown): error is NodeSystemError {
  return error instanceof Error && typeof (error as Partial<NodeSystemError>).code === 'string';
}

/** True when `error` is a Node.js system error with one of `codes`. */
export function hasErrorCode(error: unknown, ...codes: string[]): boolean {
  return isNodeSystemError(error) && codes.includes(error.code);
}

const REASONS: Readonly<Record<string, string>> = {
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is exhausted',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'the file system is read-only',
  ENOTDIR: 'a file is in the way where a folder was expected',
  EISDIR: 'a folder is in the way where a file was expected',
  EEXIST: 'something already exists at that path',
  ENOENT: 'it does not exist',
  EMFILE: 'too many open files in this process',
  ENFILE: 'too many open files on this system',
  EIO: 'an input/output error occurred',
  ENAMETOOLONG: 'the path is too long',
  ELOOP: 'too many symbolic links',
  EBUSY: 'the resource is busy',
};

/**
 * Wraps a failed file operation in a `StorageError` whose message names the path and the reason,
 * for example `Could not write /data/cards.json: the disk is full (ENOSPC)`. Errors that already
 * are ctxmem errors pass through unchanged.
 */
export function toStorageError(error: unknown, path: string, action: string): CtxmemError {
  if (CtxmemError.isInstance(error)) return error;
  if (isNodeSystemError(error)) {
    const reason = REASONS[error.code] ?? error.message;
    return new StorageError({
      message: `Could not ${action} ${path}: ${reason} (${error.code}).`,
      path,
      cause: error,
    });
  }
  const detail = error instanceof Error ? error.message : String(error);
  return new StorageError({
    message: `Could not ${action} ${path}: ${detail}`,
    path,
    cause: error,
  });
}

/** Runs a file operation and maps whatever it throws with `toStorageError`. */
export async function withStorageErrors<T>(
  path: string,
  action: string,
  operation: () => Promise<T>,
): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw toStorageError(error, path, action);
  }
}

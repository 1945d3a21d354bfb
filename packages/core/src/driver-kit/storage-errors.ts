import { CtxmemError, InvalidArgumentError, StorageError } from '../errors/index.js';
import { requireOptions } from '../validation/index.js';

/** How a driver describes what its database threw. */
export interface DatabaseErrors {
  /** The database's name in messages: `PostgreSQL`, `Redis`. */
  database: string;
  /** The error's own text and what to add after it (a code, a hint), from the thrown value. */
  describe: (error: unknown) => { detail: string; suffix: string };
}

/**
 * A driver's `toStorageError` and `withStorageErrors`: what a database throws becomes a
 * `StorageError` saying what was being done (`<database> could not <action>: <detail><suffix>`);
 * ctxmem errors pass through unchanged.
 */
export function databaseErrors(options: DatabaseErrors): {
  toStorageError: (error: unknown, action: string) => CtxmemError;
  withStorageErrors: <Result>(action: string, work: () => Promise<Result>) => Promise<Result>;
} {
  const { database, describe } = requireOptions(options, 'databaseErrors');
  const toStorageError = (error: unknown, action: string): CtxmemError => {
    if (CtxmemError.isInstance(error)) return error;
    const { detail, suffix } = describe(error);
    return new StorageError({
      message: `${database} could not ${action}: ${detail}${suffix}`,
      path: undefined,
      cause: error,
    });
  };
  return {
    toStorageError,
    async withStorageErrors(action, work) {
      try {
        return await work();
      } catch (error) {
        throw toStorageError(error, action);
      }
    },
  };
}

/** How a driver is told where its database is: a client (or pool) it is given, or a URL. */
export interface ConnectionTarget {
  /** The given client or pool, if any. */
  given: unknown;
  /** Whether the given value has the methods the driver calls. */
  usable: (given: object) => boolean;
  /** The option naming the given value: `pool`, `client`. */
  argument: string;
  /** Says what the given value must be, when it is not usable. */
  invalid: string;
  /** The URL or connection string, used when nothing is given. */
  url: unknown;
  /** Says what to pass, when neither is. */
  missing: string;
}

/** Throws `InvalidArgumentError` unless a usable client (or pool) or a non-empty URL is given. */
export function assertConnectionTarget(options: ConnectionTarget): void {
  const { given, usable, argument, invalid, url, missing } = requireOptions(
    options,
    'assertConnectionTarget',
    {
      usable: { expected: 'a function telling a usable client', type: 'function' },
      argument: { expected: 'the option name, a string', type: 'string' },
      invalid: { expected: 'the message for an unusable client, a string', type: 'string' },
      missing: { expected: 'the message for a missing target, a string', type: 'string' },
    },
  );
  if (given !== undefined) {
    if (given === null || typeof given !== 'object' || !usable(given)) {
      throw new InvalidArgumentError({ message: invalid, argument });
    }
    return;
  }
  if (typeof url !== 'string' || url === '') {
    throw new InvalidArgumentError({ message: missing, argument });
  }
}

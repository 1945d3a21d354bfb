import { describe, expect, it } from 'vitest';
import {
  AlreadyExistsError,
  BudgetExceededError,
  ConflictError,
  ContextOverflowError,
  CorruptDataError,
  CtxmemError,
  InvalidArgumentError,
  InvalidIdError,
  InvalidMessageError,
  NotFoundError,
  ScopeRequiredError,
  StorageError,
  SummarizerError,
  UnsupportedFormatError,
} from './index.js';

describe('errors', () => {
  it('recognises each class by marker, not by instanceof', () => {
    const error = new BudgetExceededError({
      message: 'too big',
      requiredTokens: 10,
      budgetTokens: 5,
    });
    expect(BudgetExceededError.isInstance(error)).toBe(true);
    expect(CtxmemError.isInstance(error)).toBe(true);
    expect(InvalidIdError.isInstance(error)).toBe(false);
    expect(error.name).toBe('CtxmemBudgetExceededError');
    expect(error.requiredTokens).toBe(10);
  });

  it('gives a ContextOverflowError its counts and, by default, one attempt of them', () => {
    const cause = new Error('prompt is too long: 208310 tokens > 200000 maximum');
    const error = new ContextOverflowError({
      message: 'too long',
      countedTokens: 160_000,
      providerTokens: 208_310,
      limitTokens: 200_000,
      cause,
    });
    expect(ContextOverflowError.isInstance(error)).toBe(true);
    expect(error.name).toBe('CtxmemContextOverflowError');
    expect(error.attempts).toEqual([
      { countedTokens: 160_000, providerTokens: 208_310, limitTokens: 200_000 },
    ]);
    expect(error.cause).toBe(cause);
  });

  it('rejects look-alikes and non-errors', () => {
    expect(NotFoundError.isInstance(new Error('x'))).toBe(false);
    expect(NotFoundError.isInstance(null)).toBe(false);
    expect(NotFoundError.isInstance({ name: 'CtxmemNotFoundError' })).toBe(false);
  });

  it('keeps the cause', () => {
    const cause = new Error('disk');
    const error = new NotFoundError({ message: 'gone', id: 'a', cause });
    expect(error.cause).toBe(cause);
  });

  it('recognises an error made by another copy of the package through its global marker', () => {
    const foreign = Object.assign(new Error('from another copy'), { name: 'CtxmemStorageError' });
    Object.defineProperty(foreign, Symbol.for('ctxmem.error'), { value: true });
    Object.defineProperty(foreign, Symbol.for('ctxmem.error.CtxmemStorageError'), { value: true });
    expect(StorageError.isInstance(foreign)).toBe(true);
    expect(CtxmemError.isInstance(foreign)).toBe(true);
    expect(NotFoundError.isInstance(foreign)).toBe(false);
  });

  it('names each error after its class and keeps the fields it was given', () => {
    const storage = new StorageError({ message: 'disk full', path: '/tmp/x' });
    expect(storage.name).toBe('CtxmemStorageError');
    expect(storage.path).toBe('/tmp/x');
    expect(storage.message).toBe('disk full');
    expect(storage).toBeInstanceOf(Error);
    const format = new UnsupportedFormatError({ message: 'not a body' });
    expect(format.name).toBe('CtxmemUnsupportedFormatError');
    expect(UnsupportedFormatError.isInstance(format)).toBe(true);
    expect(StorageError.isInstance(format)).toBe(false);
  });

  it('gives every class its fields, its name, instanceof and an unbound isInstance', () => {
    const message = 'm';
    const cases = [
      [
        new InvalidArgumentError({ message, argument: 'budget' }),
        InvalidArgumentError,
        { argument: 'budget' },
      ],
      [new InvalidIdError({ message, id: '../x' }), InvalidIdError, { id: '../x' }],
      [
        new InvalidMessageError({ message, path: 'messages[0]' }),
        InvalidMessageError,
        { path: 'messages[0]' },
      ],
      [new NotFoundError({ message, id: 'a' }), NotFoundError, { id: 'a' }],
      [
        new AlreadyExistsError({ message, id: '/memories/a.md' }),
        AlreadyExistsError,
        { id: '/memories/a.md' },
      ],
      [
        new ScopeRequiredError({ message, field: 'userId' }),
        ScopeRequiredError,
        { field: 'userId' },
      ],
      [new StorageError({ message, path: undefined }), StorageError, { path: undefined }],
      [
        new CorruptDataError({ message, path: 'f', recoveredRecords: 2 }),
        CorruptDataError,
        { path: 'f', recoveredRecords: 2 },
      ],
      [
        new ConflictError({ message, expectedVersion: 1, actualVersion: 2, position: 1 }),
        ConflictError,
        { expectedVersion: 1, actualVersion: 2, position: 1 },
      ],
      [
        new SummarizerError({ message, summarizer: 'llm' }),
        SummarizerError,
        { summarizer: 'llm', kind: 'error' },
      ],
      [
        new SummarizerError({ message, summarizer: 'llm', kind: 'timeout' }),
        SummarizerError,
        { summarizer: 'llm', kind: 'timeout' },
      ],
    ] as const;
    const errors = cases.map(([error]) => error);
    for (const [error, errorClass, fields] of cases) {
      expect(error).toBeInstanceOf(errorClass);
      expect(error).toBeInstanceOf(CtxmemError);
      expect(error).toMatchObject({ message, name: errorClass.errorName, ...fields });
      expect(errors.filter(errorClass.isInstance)).toEqual(
        errors.filter((other) => other.constructor === errorClass),
      );
    }
    expect(errors.filter(CtxmemError.isInstance)).toHaveLength(errors.length);
  });
});

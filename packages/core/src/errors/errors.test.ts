import { describe, expect, it } from 'vitest';
import { BudgetExceededError, CtxmemError, InvalidIdError, NotFoundError } from './index.js';

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
});

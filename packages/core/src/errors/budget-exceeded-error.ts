import { CtxmemError, type CtxmemErrorOptions } from './ctxmem-error.js';

/** The prompt cannot be made to fit the budget without breaking an invariant (for example a system prompt larger than the budget). */
export class BudgetExceededError extends CtxmemError {
  static override readonly errorName = 'CtxmemBudgetExceededError';
  /** Tokens the smallest valid prompt still needs. */
  readonly requiredTokens: number;
  /** The budget that was asked for. */
  readonly budgetTokens: number;

  constructor({
    requiredTokens,
    budgetTokens,
    ...options
  }: CtxmemErrorOptions & { requiredTokens: number; budgetTokens: number }) {
    super(options);
    this.requiredTokens = requiredTokens;
    this.budgetTokens = budgetTokens;
  }

  static override isInstance(error: unknown): error is BudgetExceededError {
    return CtxmemError.hasMarker(error, BudgetExceededError.errorName);
  }
}

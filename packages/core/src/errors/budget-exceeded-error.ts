import { CtxmemError } from './ctxmem-error.js';

/** The prompt cannot be made to fit the budget without breaking an invariant (for example a system prompt larger than the budget). */
export class BudgetExceededError extends CtxmemError<{
  requiredTokens: number;
  budgetTokens: number;
}> {
  static override readonly errorName = 'CtxmemBudgetExceededError';
  /** Tokens the smallest valid prompt still needs. */
  declare readonly requiredTokens: number;
  /** The budget that was asked for. */
  declare readonly budgetTokens: number;

  static override readonly isInstance = CtxmemError.markerGuard<BudgetExceededError>(this);
}

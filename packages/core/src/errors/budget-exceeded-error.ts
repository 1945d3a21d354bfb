import { CtxmemError } from './ctxmem-error.js';

const name = 'CtxmemBudgetExceededError';
const marker = `ctxmem.error.${name}`;
const symbol = Symbol.for(marker);

/** The prompt cannot be made to fit the budget without breaking an invariant (for example a system prompt larger than the budget). */
export class BudgetExceededError extends CtxmemError {
  private readonly [symbol] = true;
  /** Tokens the smallest valid prompt still needs. */
  readonly requiredTokens: number;
  /** The budget that was asked for. */
  readonly budgetTokens: number;

  constructor({
    message,
    cause,
    requiredTokens,
    budgetTokens,
  }: {
    message: string;
    cause?: unknown;
    requiredTokens: number;
    budgetTokens: number;
  }) {
    super({ name, message, cause });
    this.requiredTokens = requiredTokens;
    this.budgetTokens = budgetTokens;
  }

  static override isInstance(error: unknown): error is BudgetExceededError {
    return CtxmemError.hasMarker(error, marker);
  }
}

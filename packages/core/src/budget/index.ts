export { type CheckTriggerOptions, checkTrigger } from './check-trigger.js';
export { MODEL_CONTEXT_WINDOWS, resolveContextWindow } from './model-context-windows.js';
export {
  type Budget,
  DEFAULT_TEMPLATE_RESERVE_TOKENS,
  type ReserveOptions,
  type ResolveBudgetOptions,
  resolveBudget,
} from './resolve-budget.js';

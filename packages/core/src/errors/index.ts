export { AlreadyExistsError } from './already-exists-error.js';
export { BudgetExceededError } from './budget-exceeded-error.js';
export { ConflictError } from './conflict-error.js';
export {
  type ContextOverflowAttempt,
  ContextOverflowError,
} from './context-overflow-error.js';
export { CorruptDataError } from './corrupt-data-error.js';
export { CtxmemError, type CtxmemErrorOptions } from './ctxmem-error.js';
export { InvalidArgumentError } from './invalid-argument-error.js';
export { InvalidIdError } from './invalid-id-error.js';
export { InvalidMessageError } from './invalid-message-error.js';
export { NotFoundError } from './not-found-error.js';
export { ScopeRequiredError } from './scope-required-error.js';
export { StorageError } from './storage-error.js';
export { SummarizerError } from './summarizer-error.js';
export { errorClassOf, summarizerFailureOf } from './summarizer-failure.js';
export { UnsupportedFormatError } from './unsupported-format-error.js';

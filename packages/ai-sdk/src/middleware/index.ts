export {
  CTXMEM_PROVIDER_OPTIONS_KEY,
  type CtxmemCallOptions,
} from './call-scope.js';
export {
  type ContextMemoryControls,
  type ContextMemoryMiddleware,
  type ContextMemoryMiddlewareOptions,
  type ContextMemoryMiddlewareV3,
  type ContextMemoryTransform,
  contextMemoryMiddleware,
  contextMemoryMiddlewareV3,
  type MiddlewareCallOptions,
  type ScopeResolver,
  type WrappedModelLike,
} from './context-memory-middleware.js';
export {
  isLanguageModel,
  type LanguageModelCompleteOptions,
  type LanguageModelLike,
  languageModelComplete,
  type TextCallOptions,
} from './language-model-complete.js';

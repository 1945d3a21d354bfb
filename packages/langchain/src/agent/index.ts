export {
  type ContextMemoryControls,
  type ContextMemoryMiddleware,
  type ContextMemoryMiddlewareOptions,
  contextMemoryMiddleware,
  type MiddlewareRuntime,
  REMOVE_ALL_MESSAGES,
  type ScopeResolver,
  threadScope,
} from './context-memory-middleware.js';

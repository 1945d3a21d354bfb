export {
  type ContextMemoryControls,
  type ContextMemoryMiddleware,
  type ContextMemoryMiddlewareOptions,
  contextMemoryMiddleware,
  type MiddlewareRuntime,
  type ScopeResolver,
  threadScope,
} from './context-memory-middleware.js';

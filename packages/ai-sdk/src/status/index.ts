export {
  type ContextStatus,
  type ContextStatusOptions,
  type ContextStatusWriter,
  writeContextStatus,
} from './context-status.js';
export type {
  CtxmemCompactionData,
  CtxmemDataChunk,
  CtxmemDataParts,
  CtxmemMemoriesData,
  CtxmemSummarizerFallbackData,
} from './data-parts.js';
export type { ContextEventSource } from './scoped-events.js';

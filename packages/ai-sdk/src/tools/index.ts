export {
  type AiSdkEmbedderOptions,
  AiSdkEmbeddingError,
  aiSdkEmbedder,
} from './ai-sdk-embedder.js';
export {
  type MemoryToolBackendExecute,
  type MemoryToolBackendScopeOptions,
  memoryToolBackend,
} from './memory-tool-backend.js';
export {
  type MemoryToolCall,
  type MemoryToolName,
  type MemoryToolsScopeOptions,
  memoryTools,
} from './memory-tools.js';

export {
  type AiSdkEmbedderOptions,
  AiSdkEmbeddingError,
  aiSdkEmbedder,
} from './ai-sdk-embedder.js';
export {
  type MemoryToolCall,
  type MemoryToolName,
  type MemoryToolsScopeOptions,
  memoryTools,
} from './memory-tools.js';

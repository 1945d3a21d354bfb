export {
  type LangChainEmbedderOptions,
  langChainEmbedder,
} from './embeddings-embedder.js';
export {
  type MemoryDocumentMetadata,
  type MemoryFilter,
  MemoryRetriever,
  type MemoryRetrieverInput,
} from './memory-retriever.js';
export { type VectorStoreIndexOptions, vectorStoreMemoryIndex } from './vector-store-index.js';

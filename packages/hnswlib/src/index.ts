export {
  createHnswMemoryIndex,
  type HnswLoadProblem,
  HnswMemoryIndex,
  type HnswMemoryIndexOptions,
  type HnswMemoryIndexStats,
} from './hnsw-memory-index.js';
export { INDEX_FORMAT, INDEX_FORMAT_VERSION, type LoadProblemReason } from './index-file.js';

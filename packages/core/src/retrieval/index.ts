export {
  analyzeText,
  createTextAnalyzer,
  ENGLISH_STOP_WORDS,
  stemEnglishPorter,
  type TextAnalyzer,
  type TextAnalyzerOptions,
} from '../text/index.js';
export {
  type Bm25Hit,
  type Bm25Index,
  type Bm25IndexOptions,
  type Bm25SearchOptions,
  createBm25Index,
} from './bm25-index.js';
export { type BruteForceIndexOptions, createBruteForceIndex } from './brute-force-index.js';
export { EmbedderDimensionError } from './embedder-dimension-error.js';
export {
  type CosineCalibration,
  calibrateCosines,
  type RankedList,
  reciprocalRankFusion,
  type ScoredList,
  weightedFusion,
} from './fusion.js';
export { createHashingEmbedder, type HashingEmbedderOptions } from './hashing-embedder.js';
export {
  type MaximalMarginalRelevanceOptions,
  maximalMarginalRelevance,
} from './maximal-marginal-relevance.js';
export {
  createMemorySearch,
  type EmbeddingCache,
  type MemorySearch,
  type MemorySearchOptions,
  type MemorySearchQueryOptions,
  type MemorySearchReport,
  type MemorySyncReport,
  type RetrievalFallbackEvent,
  type RetrievalMode,
  type RetrievedMemory,
  type SearchIndexEvent,
} from './memory-search.js';

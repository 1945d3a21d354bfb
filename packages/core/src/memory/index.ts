export type { MemoryStoreOptions } from './card-records.js';
export { createFileMemoryStore, type FileMemoryStoreOptions } from './file-memory-store.js';
export { createInMemoryMemoryStore } from './in-memory-memory-store.js';
export {
  contentTokens,
  MAX_CARD_CONTENT_LENGTH,
  type MergeCardsOptions,
  type MergeCardsResult,
  type MergeOutcome,
  mergeCards,
  NEAR_DUPLICATE_THRESHOLD,
  normalizeCardContent,
  type ValidDraft,
  validateDrafts,
} from './merge-cards.js';

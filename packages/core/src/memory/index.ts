export {
  type CardIndex,
  type CardIndexMergeResult,
  type CardMergeOptions,
  createCardIndex,
} from './card-index.js';
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
  SUPERSEDING_CARD_TYPES,
  type ValidDraft,
  validateDrafts,
} from './merge-cards.js';
export { isoTime } from './validate-drafts.js';

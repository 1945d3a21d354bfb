export type { Lease, LeaseStore } from '../contracts/index.js';
export { countHistory, readHistoryTurns } from '../history/index.js';
export {
  assertAppendPosition,
  isSameMessage,
  planPositionalAppend,
} from '../history/positional-append.js';
// Storage plumbing every driver shares: ids, scopes, codecs, locks, clocks and error mapping.
export { mergeCards, validateDrafts } from '../memory/index.js';
export { assertOffloadId, isOffloadId, offloadId } from '../offload/index.js';
export {
  checkIndexIds,
  checkIndexScopeKey,
  clampK,
  compareHits,
  keepBest,
  prepareIndexItems,
} from '../retrieval/memory-index-input.js';
export { cosine, normalizedVector } from '../retrieval/normalized-vector.js';
export {
  type AddDrafts,
  appendJsonLines,
  assertLease,
  assertRequiredScope,
  assertSafeId,
  assertStorableMessage,
  canonicalJson,
  cloneStorable,
  createKeyedQueue,
  createScopeQueue,
  decodeMessage,
  decodeStorable,
  encodeMessage,
  encodeStorable,
  hasErrorCode,
  isoNow,
  isSafeId,
  type KeyedQueue,
  MAX_ID_LENGTH,
  MAX_JOINED_DRAFTS,
  MAX_LEASE_MS,
  readJsonLines,
  SCOPE_FIELDS,
  type ScopeQueue,
  scopeFolder,
  systemClock,
  toStorageError,
  validateRequiredScope,
  withFileLock,
  withStorageErrors,
  writeFileAtomic,
} from '../storage/index.js';
export { type RequiredOption, requireOption, requireOptions } from '../validation/index.js';
export { type BackoffOptions, exponentialBackoff } from './backoff.js';
export { cardConflictKeys, draftConflictKeys } from './conflict-keys.js';
export { isSocketErrorCode } from './connection-loss.js';
export {
  type DriverStores,
  type DriverStoresOptions,
  type ResolvedDriverOptions,
  resolveDriverOptions,
} from './driver-stores.js';
export { type ErrorEventEmitter, guardErrorEvents, isErrorEventEmitter } from './error-events.js';
export { loadPeerDependency, type PeerDependency } from './peer-dependency.js';
export {
  assertCardIds,
  assertExpectedVersion,
  cardFromValue,
  cardNotFound,
  cardSearchText,
  corrupt,
  decodeCard,
  decodeState,
  encodeCard,
  encodeState,
  generateCardId,
  generateMessageId,
  normalizeRange,
  normalizeTurns,
  numberPrepared,
  offloadNotFound,
  type PreparedMessage,
  parseMessage,
  prepareMessages,
  safeIdGenerator,
} from './records.js';
export {
  assertConnectionTarget,
  type ConnectionTarget,
  type DatabaseErrors,
  databaseErrors,
} from './storage-errors.js';
export { getStoredCard } from './stored-card.js';
export {
  addSynced,
  applyRemoval,
  copyCard,
  listedCards,
  type SyncedAddOptions,
  type SyncedCommit,
  type SyncedCommitOutcome,
} from './synced-add.js';
export {
  createSyncedCardCache,
  mergeSynced,
  rollBack,
  type ScopeChanges,
  SYNCED_SCOPES,
  type SyncedCardCache,
  type SyncedCards,
  type SyncedMerge,
} from './synced-cards.js';

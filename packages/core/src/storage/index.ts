export {
  fsyncDirectory,
  removeLeftoverTempFiles,
  writeFileAtomic,
  writeFilesAtomic,
} from './atomic-write.js';
export { type Clock, isoNow, systemClock } from './clock.js';
export {
  type CorruptionEvent,
  type CorruptionMode,
  type CorruptionOptions,
  quarantineFile,
  reportCorruption,
  setAsideDamagedFile,
} from './corruption.js';
export { type FileLockOptions, withFileLock } from './file-lock.js';
export {
  createInMemoryLeaseStore,
  type InMemoryLeaseStoreOptions,
} from './in-memory-lease-store.js';
export {
  canonicalJson,
  canonicalJsonChunks,
  cloneStorable,
  decodeStorable,
  encodeStorable,
  hasMoreText,
  jsonChunks,
  type StorableJson,
} from './json-codec.js';
export {
  appendJsonLines,
  type JsonLinesReadResult,
  type LastJsonLine,
  readFileRange,
  readJsonLines,
  readLastJsonLine,
  readTextFile,
  serializeJsonLines,
} from './json-lines.js';
export { createKeyedQueue, type KeyedQueue } from './keyed-queue.js';
export { assertLease, MAX_LEASE_MS } from './lease.js';
export { assertStorableMessage, decodeMessage, encodeMessage } from './message-codec.js';
export { assertSafeId, isSafeId, MAX_ID_LENGTH } from './safe-id.js';
export {
  assertRequiredScope,
  checkScope,
  normalizeScope,
  SCOPE_FIELDS,
  type ScopeField,
  scopeFolder,
  scopeKey,
  scopeResolver,
  validateRequiredScope,
} from './scope.js';
export {
  type AddDrafts,
  createScopeQueue,
  MAX_JOINED_DRAFTS,
  type ScopeQueue,
} from './scope-queue.js';
export { hasErrorCode, toStorageError, withStorageErrors } from './storage-error.js';

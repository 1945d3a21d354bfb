export { createFileOffloadStore, type FileOffloadStoreOptions } from './file-offload-store.js';
export { createInMemoryOffloadStore, type OffloadStoreOptions } from './in-memory-offload-store.js';
export { assertOffloadId, isOffloadId, offloadId } from './offload-id.js';

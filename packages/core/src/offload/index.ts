export { createFileOffloadStore, type FileOffloadStoreOptions } from './file-offload-store.js';
export { createInMemoryOffloadStore, type OffloadStoreOptions } from './in-memory-offload-store.js';
export {
  assertOffloadId,
  contentAddressedPut,
  isOffloadId,
  markContentAddressed,
  offloadId,
  type PutOffloads,
} from './offload-id.js';

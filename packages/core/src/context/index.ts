export {
  type CallRecordInput,
  createCallRecord,
  type MessagePart,
  type ReconstructCallsInput,
  reconstructCallRecords,
  windowPartOf,
} from './call-record.js';
export { createContextManager } from './context-manager.js';
export type * from './context-manager-types.js';
export { defaultMemoryScope } from './memory-injection.js';
export { hashString, messageFingerprint } from './message-fingerprint.js';
export { sameValue, snapshotValue } from './same-value.js';

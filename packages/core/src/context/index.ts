export { type MessagePart, windowPartOf } from './call-record.js';
export { createContextManager } from './context-manager.js';
export type {
  ContextManager,
  ContextManagerOptions,
  FlushOptions,
  MemoryOptions,
  PrepareOptions,
  PrepareResult,
  RelevantMemories,
  RelevantMemoriesOptions,
} from './context-manager-types.js';
export { defaultMemoryScope } from './memory-injection.js';
export { hashString, messageFingerprint } from './message-fingerprint.js';

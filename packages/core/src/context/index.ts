export {
  type ContextManager,
  type ContextManagerOptions,
  createContextManager,
  defaultMemoryScope,
  type FlushOptions,
  type MemoryOptions,
  type PrepareOptions,
  type PrepareResult,
  type RelevantMemories,
  type RelevantMemoriesOptions,
} from './context-manager.js';
export { hashString, messageFingerprint } from './message-fingerprint.js';

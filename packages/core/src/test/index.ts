/**
 * `@ctxmem/core/test`: test doubles and the conformance suites that every store, index and driver
 * runs. Needs `vitest` (the suites) and `fast-check` (the arbitraries) as dev dependencies.
 */
export {
  type ArbitraryMessagesOptions,
  type ArbitraryOpenAIChatOptions,
  arbitraryJsonValue,
  arbitraryMessages,
  arbitraryModelMessages,
  arbitraryOpenAIChatMessages,
  arbitraryText,
  arbitraryToolInput,
} from './arbitraries/index.js';
export { type BrokenHistory, brokenHistories } from './broken-histories.js';
export { createFakeClock, type FakeClock } from './clock.js';
export {
  createFixedEmbedder,
  type FakeEmbedderBehavior,
  type FixedEmbedder,
  type FixedEmbedderOptions,
} from './embedders.js';
export { rejection, until, withoutUncaughtErrors } from './faults.js';
export { fillerText, seededBase64 } from './filler-text.js';
export {
  type HistoryStoreFactory,
  type HistoryStoreFactoryOptions,
  testHistoryStore,
} from './history-store-suite.js';
export {
  type CompactionInvariant,
  type CompactionInvariantOptions,
  type CompactionViolation,
  checkCompactionInvariants,
} from './invariants.js';
export {
  type KeywordSearchFactory,
  type KeywordSearchSubject,
  type NativeKeywordSearch,
  testKeywordSearch,
} from './keyword-search-suite.js';
export { testLeaseStore } from './lease-suite.js';
export {
  type CreateMemoryIndex,
  type MemoryIndexSuiteOptions,
  testMemoryIndex,
} from './memory-index-suite.js';
export {
  type MemoryStoreInstancesFactory,
  testMemoryStoreInstances,
} from './memory-store-instances.js';
export {
  type MemoryStoreFactory,
  type MemoryStoreFactoryOptions,
  testMemoryStore,
} from './memory-store-suite.js';
export {
  type MemoryToolFactories,
  type MemoryToolSubject,
  TRAVERSAL_ATTEMPTS,
  testMemoryToolBackend,
} from './memory-tool-suite.js';
export {
  type OffloadStoreFactory,
  type OffloadStoreFactoryOptions,
  testOffloadStore,
} from './offload-store-suite.js';
// The OpenAI-compatible test server's own barrel lists its names once.
export * from './openai-server/index.js';
export {
  auditStoredConversation,
  type PlaySharedConversationOptions,
  playSharedConversation,
  type StoredConversationAudit,
  sharedConversation,
} from './shared-conversation.js';
export {
  type ProcessStores,
  released,
  runSharedStoresJob,
  type SharedStoresJob,
} from './shared-stores-job.js';
export {
  type SharedStoresProcessesOptions,
  testSharedStoresProcesses,
  type WriterHandle,
} from './shared-stores-processes.js';
export {
  type SharedStores,
  type SharedStoresFactories,
  testSharedStores,
} from './shared-stores-suite.js';
export {
  createFailingSummarizer,
  createScriptedComplete,
  type FailingSummarizer,
  type ScriptedComplete,
  type ScriptedCompleteOptions,
  type ScriptedStep,
  summaryReply,
} from './summarizers.js';
export {
  agentReply,
  isSummaryRequest,
  type WireProblemsOptions,
  wireMessages,
  wireProblems,
} from './wire-audit.js';

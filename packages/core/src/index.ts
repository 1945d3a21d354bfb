/**
 * The main entry: what an app builds with. Every type is here; the values are listed one by one too so
 * that adding a runtime name to the public surface is a deliberate, reviewed change (see
 * `api/core.api.txt`). Building blocks for other audiences live on subpaths:
 * `@ctxmem/core/adapter-kit` (framework adapters), `@ctxmem/core/driver-kit` (storage drivers),
 * `@ctxmem/core/compression` and `@ctxmem/core/retrieval` (custom pipelines and search),
 * `@ctxmem/core/test` (test doubles and conformance suites).
 */
export type {
  BootstrapFileReport,
  BootstrapResult,
  LoadBootstrapFilesOptions,
  SkippedBootstrapFile,
  TrimBootstrapOptions,
} from './bootstrap/index.js';
// Keeping a call inside its budget.
export { loadBootstrapFiles, trimBootstrapContent } from './bootstrap/index.js';
export type {
  Budget,
  CheckTriggerOptions,
  ReserveOptions,
  ResolveBudgetOptions,
} from './budget/index.js';
export {
  checkTrigger,
  DEFAULT_TEMPLATE_RESERVE_TOKENS,
  MODEL_CONTEXT_WINDOWS,
  resolveBudget,
  resolveContextWindow,
} from './budget/index.js';
export type {
  CompactOptions,
  CompactResult,
  HistoryMode,
} from './compression/index.js';
export { compact, DEFAULT_COMPRESSION_SETTINGS } from './compression/index.js';
// The context manager's options and results: every type of that file is public.
export type * from './context/context-manager-types.js';
export { createContextManager, defaultMemoryScope } from './context/index.js';
export type {
  AssistantContentPart,
  AssistantMessage,
  CallCalibration,
  CallCompaction,
  CallCompactionSource,
  CallComposition,
  CallOverflow,
  CallRecord,
  CallStrategy,
  CompactionReport,
  CompactionTrigger,
  CompleteFn,
  CompleteHistoryStore,
  CompleteRequest,
  CompleteResult,
  CompressionContext,
  CompressionSettings,
  CompressionState,
  CompressionStrategy,
  CountCalibrationState,
  CtxmemEvent,
  CtxmemMessageKind,
  CtxmemMessageMetadata,
  CustomPart,
  DataContent,
  Embedder,
  EmbedderKind,
  EventListener,
  FilePart,
  HistoryAppendOptions,
  HistoryStore,
  ImagePart,
  JsonSchema,
  JsonValue,
  Lease,
  LeaseStore,
  MemoryCard,
  MemoryCardDraft,
  MemoryCardType,
  MemoryIndex,
  MemoryIndexHit,
  MemoryIndexItem,
  MemoryListOptions,
  MemoryStore,
  Message,
  MessageRole,
  OffloadRecord,
  OffloadStore,
  ProviderOptions,
  ReasoningPart,
  Scope,
  StoredMessage,
  StrategyName,
  StrategyReport,
  StructuredSummary,
  SummarizeRequest,
  SummarizeResult,
  Summarizer,
  SummarizerFailureKind,
  SummarizerFallback,
  SummarySections,
  SystemMessage,
  TextPart,
  TokenCounter,
  ToolApprovalRequestPart,
  ToolApprovalResponsePart,
  ToolCallPart,
  ToolContentPart,
  ToolDefinition,
  ToolExecutionContext,
  ToolMessage,
  ToolResultOutput,
  ToolResultPart,
  UserContentPart,
  UserMessage,
  WorkingState,
} from './contracts/index.js';
export { MEMORY_CARD_TYPES } from './contracts/index.js';
export type { ContextOverflowAttempt, CtxmemErrorOptions } from './errors/index.js';
// Errors: one class per fault, each with an `isInstance` check.
export {
  AlreadyExistsError,
  BudgetExceededError,
  ConflictError,
  ContextOverflowError,
  CorruptDataError,
  CtxmemError,
  InvalidArgumentError,
  InvalidIdError,
  InvalidMessageError,
  NotFoundError,
  ScopeRequiredError,
  StorageError,
  SummarizerError,
  UnsupportedFormatError,
} from './errors/index.js';
export type {
  FlushNotes,
  FlushThresholdOptions,
} from './flush/index.js';
export {
  importMemoryFiles,
  NO_REPLY,
  renderMemoryMarkdown,
  requestFlushNotes,
  writeFlushNotes,
} from './flush/index.js';
export type {
  FileHistoryStoreOptions,
  HistoryStoreOptions,
} from './history/index.js';
// Stores.
export { createFileHistoryStore, createInMemoryHistoryStore } from './history/index.js';
export type {
  MemorySearcher,
  MemorySearchHit,
  RenderMemoryInjectionOptions,
} from './inject/index.js';
export type {
  CardIndex,
  CardIndexMergeResult,
  CardMergeOptions,
  FileMemoryStoreOptions,
  MemoryStoreOptions,
  MergeCardsOptions,
  MergeCardsResult,
  MergeOutcome,
  ValidDraft,
} from './memory/index.js';
export {
  createFileMemoryStore,
  createInMemoryMemoryStore,
  mergeCards,
  SUPERSEDING_CARD_TYPES,
} from './memory/index.js';
export type {
  MemoryToolBackend,
  MemoryToolBackendOptions,
  MemoryToolCommand,
  MemoryToolCommandName,
} from './memory-files/index.js';
// The storage behind Anthropic's memory tool: files that are memory cards.
export {
  createMemoryToolBackend,
  MAX_MEMORY_FILE_CHARACTERS,
  MEMORY_FILE_TAG,
} from './memory-files/index.js';
export type {
  AiSdkModelMessage,
  AnthropicMessagesBody,
  ConversationEnvelope,
  ConversationFormat,
  MessageRepair,
  OpenAIChatAssistantMessage,
  OpenAIChatAudioPart,
  OpenAIChatFilePart,
  OpenAIChatImagePart,
  OpenAIChatMarker,
  OpenAIChatMessage,
  OpenAIChatRefusalPart,
  OpenAIChatSystemMessage,
  OpenAIChatTextPart,
  OpenAIChatToolCall,
  OpenAIChatToolMessage,
  OpenAIChatUserMessage,
  OpenAIChatUserPart,
  OpenAIResponsesBody,
  OpenAIResponsesItem,
  OpenAIResponsesMarker,
  ParsedConversation,
  RepairMessagesResult,
  Round,
  ToOpenAIResponsesOptions,
  ToolPairingProblem,
  ValidateMessagesOptions,
  WithMessageIdsOptions,
} from './messages/index.js';
// Messages in and out of the formats apps send.
export {
  checkToolPairing,
  fromAnthropicMessages,
  fromModelMessages,
  fromOpenAIChat,
  fromOpenAIResponses,
  messageText,
  parseConversation,
  repairMessages,
  serializeConversation,
  toAnthropicMessages,
  toModelMessages,
  toOpenAIChat,
  toOpenAIResponses,
  validateMessages,
} from './messages/index.js';
export type {
  FileOffloadStoreOptions,
  OffloadStoreOptions,
} from './offload/index.js';
export { createFileOffloadStore, createInMemoryOffloadStore } from './offload/index.js';
export type {
  ContextOverflow,
  CountCalibration,
  CountCalibrationOptions,
  ProviderUsage,
} from './provider/index.js';
// What the provider says: its "too long" rejections and its counts.
export {
  COUNT_RATIO_BOUNDS,
  createCountCalibration,
  defaultCountRatio,
  detectContextOverflow,
  OVERFLOW_RETRY_MARGIN,
  OVERFLOW_RETRY_SHARE,
} from './provider/index.js';
export type {
  Bm25Hit,
  Bm25Index,
  Bm25IndexOptions,
  Bm25SearchOptions,
  BruteForceIndexOptions,
  CosineCalibration,
  EmbeddingCache,
  HashingEmbedderOptions,
  MaximalMarginalRelevanceOptions,
  MemorySearch,
  MemorySearchOptions,
  MemorySearchQueryOptions,
  MemorySearchReport,
  MemorySyncReport,
  RankedList,
  RetrievalFallbackEvent,
  RetrievalMode,
  RetrievedMemory,
  ScoredList,
  SearchIndexEvent,
  TextAnalyzer,
  TextAnalyzerOptions,
} from './retrieval/index.js';
// Long-term memory: search, tools, flush.
export {
  createBruteForceIndex,
  createHashingEmbedder,
  createMemorySearch,
  EmbedderDimensionError,
} from './retrieval/index.js';
export type {
  Clock,
  CorruptionEvent,
  CorruptionMode,
  CorruptionOptions,
  FileLockOptions,
  InMemoryLeaseStoreOptions,
  JsonLinesReadResult,
  LastJsonLine,
  ScopeField,
  StorableJson,
} from './storage/index.js';
export { createInMemoryLeaseStore, normalizeScope, scopeKey } from './storage/index.js';
export type {
  CircuitBreakerOptions,
  ExtractiveSummarizerOptions,
  ModelSummarizerOptions,
  ParsedModelResponse,
} from './summarize/index.js';
// Summaries.
export {
  createExtractiveSummarizer,
  createModelSummarizer,
  renderSummary,
  SUMMARY_SYSTEM_PROMPT,
  withCircuitBreaker,
  withFallback,
} from './summarize/index.js';
export type { FoldTaskOptions } from './task/index.js';
export { foldTaskMessages } from './task/index.js';
// OpenTelemetry spans (the `telemetry` option of `createContextManager`).
export type { TelemetryOptions, TelemetryScopeMode } from './telemetry/index.js';
export type {
  EstimateCounterOptions,
  MessageCountOptions,
  TokenCounterOptions,
  TokenEncodingName,
} from './tokens/index.js';
export {
  countToolDefinitions,
  createEstimateCounter,
  createTokenCounter,
  encodingForModel,
  hasPublicTokenizer,
} from './tokens/index.js';
export type {
  AddMemoryInput,
  AddMemoryResult,
  ListMemoriesInput,
  ListMemoriesResult,
  MemoryCardResult,
  MemoryToolName,
  MemoryToolsOptions,
  RecallConversationResult,
  ReloadContextOptions,
  ReloadContextResult,
  RemoveMemoryResult,
  SchemaToolDefinition,
  SearchMemoryResult,
} from './tools/index.js';
export {
  addMemoryTool,
  createMemoryTools,
  listMemoriesTool,
  RELOAD_PAGE_TOKENS,
  recallConversationTool,
  reloadContextTool,
  removeMemoryTool,
  searchMemoryTool,
} from './tools/index.js';

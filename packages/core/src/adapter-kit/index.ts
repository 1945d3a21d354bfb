/**
 * `@ctxmem/core/adapter-kit`: the building blocks a framework adapter (the AI SDK middleware, the
 * LangChain memory and agent middleware, the CLI) uses to convert and present what core decided:
 * how ctxmem's own messages are marked, how a summary and injected memories are rendered, which
 * tokenizer names exist. Apps do not need these; core's main entry has what they build with.
 */
export { KeyedLru } from '../cache/index.js';
export { HISTORY_MODES } from '../compression/index.js';
export {
  type CallRecordInput,
  createCallRecord,
  type ReconstructCallsInput,
  reconstructCallRecords,
  sameValue,
  windowPartOf,
} from '../context/index.js';
export { FLUSH_SYSTEM_PROMPT } from '../flush/index.js';
export { startsTurn } from '../history/index.js';
export {
  MEMORY_INJECTION_HEADING,
  placeMemoryInjection,
  quoteMemoryContent,
  renderMemoryInjection,
  scopedMemory,
} from '../inject/index.js';
export { MAX_CARD_CONTENT_LENGTH } from '../memory/index.js';
export {
  ANTHROPIC_OPTIONS_KEY,
  checkJsonValue,
  detectFormat,
  isCtxmemMessage,
  labelledMessageText,
  lastUserIndex,
  lastUserMessage,
  leadingSystemCount,
  MAX_MESSAGE_JSON_DEPTH,
  mapToolOutput,
  OPENAI_CHAT_OPTIONS_KEY,
  readCtxmemMetadata,
  toolCallsOf,
  toolOutputText,
  toolResultsOf,
  withMarkerUnder,
  withMessageIds,
} from '../messages/index.js';
export { providerUsage, reportedUsage } from '../provider/index.js';
export { embeddingVector } from '../retrieval/normalized-vector.js';
export { raceSignal } from '../retrieval/race-signal.js';
export { checkScope, scopeResolver } from '../storage/index.js';
export {
  buildSummaryPrompt,
  emptySections,
  parseRenderedSummary,
  SUMMARY_HEADING,
  stripSummaryHeading,
} from '../summarize/index.js';
export {
  estimateTextTokens,
  TOKEN_ENCODING_NAMES,
  TOOL_DEFINITION_OVERHEAD,
  UNKNOWN_TOKENIZER_MARGIN,
} from '../tokens/index.js';
export { defineTool } from '../tools/index.js';
export { type RequiredOption, requireOption, requireOptions } from '../validation/index.js';

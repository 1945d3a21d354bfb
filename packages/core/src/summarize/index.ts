export {
  BASE_CHUNK_RATIO,
  computeChunkRatio,
  isOversized,
  MIN_CHUNK_RATIO,
  OVERSIZED_RATIO,
  SAFETY_MARGIN,
  splitByTokens,
} from './adaptive-chunking.js';
export {
  createExtractiveSummarizer,
  type ExtractiveSummarizerOptions,
} from './extractive-summarizer.js';
export { fitSummary } from './fit-summary.js';
export { mergeSummaries } from './merge-summaries.js';
export {
  createModelSummarizer,
  MODEL_SUMMARY_MAX_TOKENS,
  type ModelSummarizerOptions,
} from './model-summarizer.js';
export { type ParsedModelResponse, parseModelResponse } from './parse-model-response.js';
export { parseRenderedSummary, stripSummaryHeading } from './parse-rendered-summary.js';
export {
  emptySections,
  renderSummary,
  SUMMARY_HEADING,
  SUMMARY_PREAMBLE,
  SUMMARY_SECTION_TITLES,
} from './render-summary.js';
export {
  buildSummaryPrompt,
  renderMessageForPrompt,
  SUMMARY_SYSTEM_PROMPT,
} from './summary-prompt.js';
export { type CircuitBreakerOptions, withCircuitBreaker } from './with-circuit-breaker.js';
export { withFallback } from './with-fallback.js';

// What a custom strategy must keep whole (see `isOpaquePart`).
export { isOpaquePart, isProviderCompaction } from '../messages/index.js';
export { type CompactOptions, type CompactResult, compact } from './compact.js';
export { currentRoundStrategy } from './current-round.js';
export { recentOnlyStrategy, summaryOnlyStrategy } from './history-strategies.js';
export { offloadAllStrategy, offloadKeepRecentStrategy } from './offload-large-messages.js';
export { RELOAD_TOOL_NAME } from './offload-preview.js';
export {
  compressionPipeline,
  HISTORY_MODES,
  type HistoryMode,
} from './pipeline.js';
export {
  DEFAULT_COMPRESSION_SETTINGS,
  resolveCompressionSettings,
  SUMMARY_MAX_TOKENS_CEILING,
  SUMMARY_SHARE_OF_TARGET,
} from './settings.js';
export { summarizeRoundsStrategy } from './summarize-rounds.js';
export { toolRunsStrategy } from './tool-runs.js';

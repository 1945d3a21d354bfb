export {
  type CompactCommandOptions,
  DEFAULT_TIMEOUT_MS,
  keepRecentSettings,
  parseCompactArguments,
} from './compact-arguments.js';
export {
  CLI_SCOPE,
  type CompactReportJson,
  PROGRESS_MIN_TOKENS,
  runCompact,
} from './compact-command.js';

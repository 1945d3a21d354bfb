export type { MemoryAddOptions, MemoryAddSummary } from './memory-add.js';
export { MEMORY_SUBCOMMANDS, type MemorySubcommand, runMemoryCommand } from './memory-command.js';
export type { MemoryListCommandOptions } from './memory-list.js';
export type { MemoryRemoveOptions } from './memory-remove.js';
export type {
  MemorySearchCommandOptions,
  MemorySearchLineJson,
  MemorySearchResultJson,
} from './memory-search.js';
export type { MemoryStatsJson, MemoryStatsOptions } from './memory-stats.js';

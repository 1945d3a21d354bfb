export { defineTool } from './define-tool.js';
export {
  createMemoryTools,
  type MemoryToolName,
  type MemoryToolsOptions,
  RELOAD_PAGE_TOKENS,
  type RecallConversationResult,
  type ReloadContextOptions,
  type ReloadContextResult,
  recallConversationTool,
  reloadContextTool,
  type SearchMemoryResult,
  searchMemoryTool,
} from './memory-tools.js';

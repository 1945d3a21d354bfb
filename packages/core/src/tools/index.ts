export { defineTool, type SchemaToolDefinition } from './define-tool.js';
export {
  type AddMemoryInput,
  type AddMemoryResult,
  addMemoryTool,
  type ListMemoriesInput,
  type ListMemoriesResult,
  listMemoriesTool,
  MAX_TOOL_CARD_TAGS,
  MAX_TOOL_REMOVE_IDS,
  type MemoryCardResult,
  type RemoveMemoryResult,
  removeMemoryTool,
} from './memory-card-tools.js';
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

export { defineTool } from './define-tool.js';
export {
  createMemoryTools,
  type MemoryToolsOptions,
  type RecallConversationResult,
  type ReloadContextResult,
  recallConversationTool,
  reloadContextTool,
  type SearchMemoryResult,
  searchMemoryTool,
} from './memory-tools.js';
//# sourceMappingURL=index.d.ts.map

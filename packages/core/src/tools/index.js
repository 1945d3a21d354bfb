export { defineTool } from './define-tool.js';
export {
  createMemoryTools,
  recallConversationTool,
  reloadContextTool,
  searchMemoryTool,
} from './memory-tools.js';
//# sourceMappingURL=index.js.map

export { type AnthropicMemoryToolOptions, anthropicMemoryTool } from './anthropic-memory-tool.js';
export {
  type MemoryToolName,
  type MemoryToolRuntime,
  type MemoryToolsScopeOptions,
  type MemoryToolsSource,
  memoryTools,
} from './memory-tools.js';

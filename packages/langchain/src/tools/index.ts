export {
  type MemoryToolName,
  type MemoryToolRuntime,
  type MemoryToolsScopeOptions,
  type MemoryToolsSource,
  memoryTools,
} from './memory-tools.js';

export {
  MEMORY_INJECTION_HEADING,
  type MemorySearcher,
  type MemorySearchHit,
  placeMemoryInjection,
  quoteMemoryContent,
  type RenderMemoryInjectionOptions,
  renderMemoryInjection,
} from './memory-injection.js';
export { scopedMemory } from './scoped-memory.js';

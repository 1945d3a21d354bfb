export {
  MAX_MEMORY_FILE_CHARACTERS,
  MEMORY_FILE_TAG,
  memoryFilesOf,
  readMemoryFileCard,
  type StoredMemoryFile,
} from './memory-file-card.js';
export { MEMORY_FILES_LOCK } from './memory-files-lock.js';
export {
  MAX_MEMORY_PATH_LENGTH,
  MEMORY_ROOT,
  type MemoryPath,
  parseMemoryPath,
} from './memory-path.js';
export {
  createMemoryToolBackend,
  type MemoryToolBackend,
  type MemoryToolBackendOptions,
} from './memory-tool-backend.js';
export {
  type MemoryToolCommand,
  type MemoryToolCommandName,
  memoryToolInputSchema,
  parseMemoryToolCommand,
} from './memory-tool-command.js';

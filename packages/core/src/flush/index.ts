export {
  importMemoryFiles,
  memoryFilesFolder,
  parseMemoryMarkdown,
  renderMemoryMarkdown,
  writeFlushNotes,
} from './flush-files.js';
export {
  buildFlushPrompt,
  FLUSH_SYSTEM_PROMPT,
  type FlushNotes,
  type FlushThresholdOptions,
  flushThresholdTokens,
  NO_REPLY,
  parseFlushReply,
  requestFlushNotes,
} from './memory-flush.js';

export {
  ContextChatMemory,
  type ContextChatMemoryInput,
  ContextChatMessageHistory,
} from './context-chat-memory.js';

export { ContextChatMemory, type ContextChatMemoryInput } from './context-chat-memory.js';
export { ContextChatMessageHistory } from './context-chat-message-history.js';

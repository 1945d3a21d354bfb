// The agent middleware (`@ctxmem/langchain/agent`, needs `langchain`) and ContextChatMemory
// (`@ctxmem/langchain/memory`, needs `@langchain/classic`) have their own entry points, so that
// this one needs `@langchain/core` only.
export * from './convert/index.js';
export * from './model/index.js';
export * from './retrieval/index.js';
export * from './tools/index.js';

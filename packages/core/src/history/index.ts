export { createFileHistoryStore, type FileHistoryStoreOptions } from './file-history-store.js';
export { countHistory, readHistoryTurns } from './history-capabilities.js';
export { startsTurn } from './history-records.js';
export { createInMemoryHistoryStore, type HistoryStoreOptions } from './in-memory-history-store.js';

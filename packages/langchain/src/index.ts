export * from './agent/index.js';
export * from './convert/index.js';
export * from './memory/index.js';
export * from './model/index.js';
export * from './retrieval/index.js';
export * from './tools/index.js';

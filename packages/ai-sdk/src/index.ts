export * from './convert/index.js';
export * from './middleware/index.js';
export * from './status/index.js';
export * from './tools/index.js';

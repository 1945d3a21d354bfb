export * from './convert/index.js';
export * from './memory/index.js';
export * from './model/index.js';

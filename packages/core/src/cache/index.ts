export { KeyedLru } from './keyed-lru.js';
export { lazy } from './lazy.js';

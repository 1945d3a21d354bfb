export { KeyedLru } from './keyed-lru.js';

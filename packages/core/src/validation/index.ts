export { type RequiredOption, requireOption, requireOptions } from './require-options.js';

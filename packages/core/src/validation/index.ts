export {
  type RequiredOption,
  requireOption,
  requireOptions,
  TOKEN_COUNTER_OPTION,
} from './require-options.js';

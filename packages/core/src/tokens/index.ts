export { type BoundedTokenCounter, boundedCounter } from './bounded-counter.js';
export { TOKEN_ENCODING_NAMES, type TokenEncodingName } from './bpe-ranks.js';
export type { MessageCountOptions } from './build-counter.js';
export { createEstimateCounter, type EstimateCounterOptions } from './create-estimate-counter.js';
export { createTokenCounter, type TokenCounterOptions } from './create-token-counter.js';
export {
  encodingForModel,
  hasPublicTokenizer,
  UNKNOWN_TOKENIZER_MARGIN,
} from './encoding-for-model.js';
export { estimateTextTokens } from './estimate-text-tokens.js';
export { LONGEST_TOKEN_BYTES, textTokenFloor } from './token-floor.js';
export { countToolDefinitions, TOOL_DEFINITION_OVERHEAD } from './tool-definitions-cost.js';

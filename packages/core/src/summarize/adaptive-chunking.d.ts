/**
 * Adaptive chunking (seed 003, PR-04): when the messages to summarize do not fit the summarizer's
 * own window, they are summarized in chunks whose size shrinks as messages grow, with a margin for
 * token counts that differ from the model's own tokenizer.
 */
/** Chunk size as a share of the window when messages are small. */
export declare const BASE_CHUNK_RATIO = 0.4;
/** The floor the chunk ratio falls to when messages are large. */
export declare const MIN_CHUNK_RATIO = 0.15;
/** Token counts are multiplied by this before packing: estimates may undercount the model's tokenizer. */
export declare const SAFETY_MARGIN = 1.2;
/** A message above this share of the window (after the margin) is never sent whole. */
export declare const OVERSIZED_RATIO = 0.5;
/**
 * The share of the window one chunk may fill: 0.4 while the average message (times the safety
 * margin) stays under 10% of the window, then lower by twice the average's share, down to 0.15.
 */
export declare function computeChunkRatio(
  tokenCounts: readonly number[],
  contextWindow: number,
): number;
/** Whether one message is too large to summarize whole in a window of `contextWindow` tokens. */
export declare function isOversized(tokens: number, contextWindow: number): boolean;
/**
 * Packs items in order into chunks of at most `maxTokens` (by `tokensOf`). An item larger than
 * `maxTokens` gets a chunk of its own; no chunk is empty.
 */
export declare function splitByTokens<Item>(
  items: readonly Item[],
  tokensOf: (item: Item) => number,
  maxTokens: number,
): Item[][];
//# sourceMappingURL=adaptive-chunking.d.ts.map

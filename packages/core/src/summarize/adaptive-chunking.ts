/**
 * Adaptive chunking: when the messages to summarize do not fit the summarizer's
 * own window, they are summarized in chunks whose size shrinks as messages grow, with a margin for
 * token counts that differ from the model's own tokenizer.
 */

/** Chunk size as a share of the window when messages are small. */
export const BASE_CHUNK_RATIO = 0.4;
/** The floor the chunk ratio falls to when messages are large. */
export const MIN_CHUNK_RATIO = 0.15;
/** Token counts are multiplied by this before packing: estimates may undercount the model's tokenizer. */
export const SAFETY_MARGIN = 1.2;
/** A message above this share of the window (after the margin) is never sent whole. */
export const OVERSIZED_RATIO = 0.5;

/**
 * The share of the window one chunk may fill: 0.4 while the average message (times the safety
 * margin) stays under 10% of the window, then lower by twice the average's share, down to 0.15.
 */
export function computeChunkRatio(tokenCounts: readonly number[], contextWindow: number): number {
  if (tokenCounts.length === 0 || !(contextWindow > 0)) return BASE_CHUNK_RATIO;
  const total = tokenCounts.reduce((sum, tokens) => sum + tokens, 0);
  const averageShare = ((total / tokenCounts.length) * SAFETY_MARGIN) / contextWindow;
  if (averageShare <= 0.1) return BASE_CHUNK_RATIO;
  const reduction = averageShare * 2;
  // Compared before subtracting so that the floor is exactly 0.15, not 0.15000000000000002.
  return reduction >= BASE_CHUNK_RATIO - MIN_CHUNK_RATIO
    ? MIN_CHUNK_RATIO
    : BASE_CHUNK_RATIO - reduction;
}

/** Whether one message is too large to summarize whole in a window of `contextWindow` tokens. */
export function isOversized(tokens: number, contextWindow: number): boolean {
  return tokens * SAFETY_MARGIN > contextWindow * OVERSIZED_RATIO;
}

/**
 * Packs items in order into chunks of at most `maxTokens` (by `tokensOf`). An item larger than
 * `maxTokens` gets a chunk of its own; no chunk is empty.
 */
export function splitByTokens<Item>(
  items: readonly Item[],
  tokensOf: (item: Item) => number,
  maxTokens: number,
): Item[][] {
  const chunks: Item[][] = [];
  let current: Item[] = [];
  let currentTokens = 0;
  for (const item of items) {
    const tokens = tokensOf(item);
    if (current.length > 0 && currentTokens + tokens > maxTokens) {
      chunks.push(current);
      current = [];
      currentTokens = 0;
    }
    current.push(item);
    currentTokens += tokens;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

import type { Message, TokenCounter } from '../contracts/index.js';

/** A message a strategy shrank to a preview, and how to render it with a larger one. */
export interface ShrunkMessage {
  /** Its position in the prompt. */
  index: number;
  /** The preview form with `previewChars` of the original (same id in the offload store). */
  render: (previewChars: number) => Message;
  /** The preview size it was shrunk with: it never gets smaller than this. */
  previewChars: number;
  /** Characters of the original payload: a preview never needs more. */
  payloadChars: number;
}

/**
 * Compress only as much as the budget requires: a strategy shrinks whole payloads until the
 * prompt is under target, which usually overshoots (a 44k-token tool result became a 159-token
 * preview under a 4,000-token budget). This grows the previews back into the `room` left under
 * target, the newest message first (what the model is working on), each by a search on its
 * preview size, so that a payload keeps as much of itself as the room allows. Every accepted
 * size is counted exactly; O(log preview) counts per message, each of at most twice the preview
 * kept, whatever the payload's size. Returns the tokens it used.
 */
export function useTheRoom(
  messages: Message[],
  shrunk: readonly ShrunkMessage[],
  room: number,
  counter: TokenCounter,
): number {
  let left = room;
  const newestFirst = [...shrunk].sort((first, second) => second.index - first.index);
  for (const entry of newestFirst) {
    if (left <= 0) break;
    const current = messages[entry.index]!;
    const currentTokens = counter.countMessage(current);
    const limit = currentTokens + left;
    let low = entry.previewChars + 1;
    let high = entry.payloadChars;
    let best: { message: Message; tokens: number } | undefined;
    const attempt = (size: number) => {
      const candidate = entry.render(size);
      const tokens = counter.countMessage(candidate);
      return tokens <= limit ? { message: candidate, tokens } : undefined;
    };
    // Gallop up from the preview size, doubling, to the first size that does not fit, then bisect
    // between the last two: no size tried is over twice the preview kept, however large the payload
    // (a binary search over the whole payload would count half of a 50 MB payload first).
    for (let size = Math.max(low, entry.previewChars * 2); low <= high; size *= 2) {
      const tried = Math.min(size, high);
      const fitted = attempt(tried);
      if (!fitted) {
        high = tried - 1;
        break;
      }
      best = fitted;
      low = tried + 1;
    }
    while (low <= high) {
      const middle = Math.floor((low + high) / 2);
      const fitted = attempt(middle);
      if (fitted) {
        best = fitted;
        low = middle + 1;
      } else {
        high = middle - 1;
      }
    }
    if (best === undefined || best.tokens <= currentTokens) continue;
    messages[entry.index] = best.message;
    left -= best.tokens - currentTokens;
  }
  return room - left;
}

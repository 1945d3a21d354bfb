import { estimateTextTokens } from '../tokens/index.js';

/**
 * Splits `text` into pages of at most `pageTokens` tokens (by `estimateTextTokens`), cutting at a
 * line break (else a space) in the last fifth of each page when there is one. Linear in the length of
 * the text: each page is sized from the text's average characters per token, then shrunk until it
 * fits, and a page never starts before the previous one ended. Returns the start offset of every
 * page (the first is 0); page `i` runs from `starts[i]` to `starts[i + 1]` (or the end).
 */
export function pageStarts(text: string, pageTokens: number): number[] {
  const starts = [0];
  if (text.length === 0) return starts;
  const tokens = Math.max(1, estimateTextTokens(text));
  // Characters a page holds on average, with a margin for denser stretches.
  const pageCharacters = Math.max(1, Math.floor((text.length / tokens) * pageTokens * 0.9));
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + pageCharacters);
    // Dense stretches (code, CJK) hold fewer characters per token: shrink until the page fits.
    while (end - start > 1 && estimateTextTokens(text.slice(start, end)) > pageTokens) {
      end = start + Math.floor((end - start) * 0.8);
    }
    if (end < text.length) {
      const window = text.slice(start + Math.floor((end - start) * 0.8), end);
      // A line break if the page's last fifth has one, else a space.
      const lineBreak = window.lastIndexOf('\n');
      const breakAt = lineBreak !== -1 ? lineBreak : window.lastIndexOf(' ');
      if (breakAt > 0) end = start + Math.floor((end - start) * 0.8) + breakAt + 1;
      // Never split a surrogate pair.
      const code = text.charCodeAt(end - 1);
      if (code >= 0xd800 && code <= 0xdbff && end - start > 1) end--;
    }
    if (end >= text.length) break;
    starts.push(end);
    start = end;
  }
  return starts;
}

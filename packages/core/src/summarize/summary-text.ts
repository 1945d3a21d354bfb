import type { TokenCounter } from '../contracts/index.js';

export const ELLIPSIS = '…';

/** Collapses runs of whitespace so that one bullet stays on one line. */
export function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Cuts `text` to at most `maxChars` characters, marking the cut with `…`. */
export function truncateText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  if (maxChars <= 1) return ELLIPSIS.slice(0, Math.max(0, maxChars));
  // Avoid leaving half of a surrogate pair behind.
  let end = maxChars - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end).trimEnd()}${ELLIPSIS}`;
}

/**
 * Keeps the head and the tail of a long text with a marker in between that says how much was
 * left out, so the reader knows the middle is missing rather than short.
 */
export function headAndTail(text: string, headChars: number, tailChars: number): string {
  if (text.length <= headChars + tailChars) return text;
  const omitted = text.length - headChars - tailChars;
  const head = text.slice(0, headChars).trimEnd();
  const tail = tailChars > 0 ? text.slice(text.length - tailChars).trimStart() : '';
  return `${head}\n[… ${omitted} characters omitted …]${tail ? `\n${tail}` : ''}`;
}

/**
 * The longest head of `text` (cut with `…`) whose token count is at most `maxTokens`, or `''`
 * when not even the ellipsis fits. Binary search on characters keeps it to O(log n) counts.
 */
export function truncateToTokens(text: string, maxTokens: number, counter: TokenCounter): string {
  if (counter.countText(text) <= maxTokens) return text;
  let low = 0;
  let high = text.length - 1;
  let best = '';
  while (low <= high) {
    const middle = (low + high) >> 1;
    const candidate = truncateText(text, middle + 1);
    if (counter.countText(candidate) <= maxTokens) {
      best = candidate;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  return best === ELLIPSIS ? '' : best;
}

/**
 * The form two bullets are compared in to detect duplicates: case, spacing, a speaker prefix and
 * trailing punctuation do not make a bullet new.
 */
export function comparisonKey(text: string): string {
  return collapseWhitespace(text)
    .toLowerCase()
    .replace(/^(user|assistant)\s*:\s*/, '')
    .replace(/[\s.。!！?？;；:：,，…]+$/u, '');
}

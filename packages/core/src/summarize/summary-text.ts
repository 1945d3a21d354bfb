import type { TokenCounter } from '../contracts/index.js';

export const ELLIPSIS = '…';

/** Whitespace that collapsing would change: a run of two or more, or one that is not a space. */
const UNCOLLAPSED_WHITESPACE = /[^\S ]| {2}/;

/** Collapses runs of whitespace so that one bullet stays on one line. */
export function collapseWhitespace(text: string): string {
  // Most sentences are single-spaced already: a test is cheaper than rebuilding the string.
  if (!UNCOLLAPSED_WHITESPACE.test(text)) return text.trim();
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

const TRAILING_MARK = /^[\s.。!！?？;；:：,，…]$/u;
const TRAILING_MARKS = /[\s.。!！?？;；:：,，…]+$/u;

/**
 * The form two bullets are compared in to detect duplicates: case, spacing, a speaker prefix and
 * trailing punctuation do not make a bullet new.
 */
export function comparisonKey(text: string): string {
  const key = collapseWhitespace(text)
    .toLowerCase()
    .replace(/^(user|assistant)\s*:\s*/, '');
  // The pattern for the trailing run is tried from every space of the text: only worth it when
  // the text ends with one of its characters.
  return TRAILING_MARK.test(key.at(-1) ?? '') ? key.replace(TRAILING_MARKS, '') : key;
}

/**
 * Takes the small talk off the edges of a sentence while keeping its facts: leading
 * interjections and thank-yous ("Wow, ", "Thanks so much! "), and the name of the person spoken
 * to, at the start or the end ("Ana, that's great!" → "that's great!"). `isAddressee` says
 * whether a word names someone in the conversation. Returns `''` when nothing else is left.
 */
export function stripPleasantries(
  sentence: string,
  isAddressee: (word: string) => boolean,
  interjection: RegExp,
): string {
  let text = sentence;
  for (let round = 0; round < 3; round++) {
    const before = text;
    text = text.replace(interjection, '');
    const leadingName = /^([\p{Lu}][\p{L}'’-]*)\s*[,!]+\s*/u.exec(text);
    if (leadingName && isAddressee(leadingName[1]!)) text = text.slice(leadingName[0].length);
    if (text === before) break;
  }
  const trailingName = /[,\s]+([\p{Lu}][\p{L}'’-]*)\s*([.!?]*)$/u.exec(text);
  if (trailingName && trailingName.index > 0 && isAddressee(trailingName[1]!)) {
    text = `${text.slice(0, trailingName.index)}${trailingName[2] ?? ''}`;
  }
  return text.trim();
}

import type { TokenCounter } from '../contracts/index.js';
export declare const ELLIPSIS = '\u2026';
/** Collapses runs of whitespace so that one bullet stays on one line. */
export declare function collapseWhitespace(text: string): string;
/** Cuts `text` to at most `maxChars` characters, marking the cut with `…`. */
export declare function truncateText(text: string, maxChars: number): string;
/**
 * Keeps the head and the tail of a long text with a marker in between that says how much was
 * left out, so the reader knows the middle is missing rather than short.
 */
export declare function headAndTail(text: string, headChars: number, tailChars: number): string;
/**
 * The longest head of `text` (cut with `…`) whose token count is at most `maxTokens`, or `''`
 * when not even the ellipsis fits. Binary search on characters keeps it to O(log n) counts.
 */
export declare function truncateToTokens(
  text: string,
  maxTokens: number,
  counter: TokenCounter,
): string;
/**
 * The form two bullets are compared in to detect duplicates: case, spacing, a speaker prefix and
 * trailing punctuation do not make a bullet new.
 */
export declare function comparisonKey(text: string): string;
/**
 * Takes the small talk off the edges of a sentence while keeping its facts: leading
 * interjections and thank-yous ("Wow, ", "Thanks so much! "), and the name of the person spoken
 * to, at the start or the end ("Caroline, that's great!" → "that's great!"). `isAddressee` says
 * whether a word names someone in the conversation. Returns `''` when nothing else is left.
 */
export declare function stripPleasantries(
  sentence: string,
  isAddressee: (word: string) => boolean,
  interjection: RegExp,
): string;
//# sourceMappingURL=summary-text.d.ts.map

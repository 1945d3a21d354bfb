/** Where to cut `text` near `index` without splitting a surrogate pair. */
function safeCut(text: string, index: number): number {
  if (index <= 0 || index >= text.length) return Math.max(0, Math.min(index, text.length));
  const code = text.charCodeAt(index - 1);
  return code >= 0xd800 && code <= 0xdbff ? index - 1 : index;
}

/** The first `maxChars` characters of `text`, marked with how much was cut. */
export function headOf(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const end = safeCut(text, maxChars);
  return `${text.slice(0, end)}… [${text.length - end} more characters]`;
}

/** Head and tail of `text` with the omitted middle marked, so the reader knows it is missing. */
export function headAndTail(text: string, headChars: number, tailChars: number): string {
  if (text.length <= headChars + tailChars) return text;
  const headEnd = safeCut(text, headChars);
  let tailStart = safeCut(text, text.length - tailChars);
  if (tailStart < headEnd) tailStart = headEnd;
  const omitted = tailStart - headEnd;
  return `${text.slice(0, headEnd)}\n[… ${omitted} characters omitted …]\n${text.slice(tailStart)}`;
}

/**
 * Quotes untrusted content as one JSON string, so text that was a tool result or a user paste
 * ("ignore previous instructions", a fake `## Context Summary`, a closing fence) reaches the
 * model as data inside quotes, never as instructions or structure of ours.
 */
export function quoteAsData(text: string): string {
  return JSON.stringify(text);
}

/** JSON of a tool-call input, `null` for undefined. */
export function inputJson(input: unknown): string {
  try {
    return JSON.stringify(input) ?? 'null';
  } catch {
    return '"[unserialisable input]"';
  }
}

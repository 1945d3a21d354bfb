import { InvalidArgumentError } from '../errors/index.js';
import { requireOptions } from '../validation/index.js';

export interface TrimBootstrapOptions {
  /** Share of `maxChars` kept from the start of the file. @default 0.7 */
  headRatio?: number;
  /** Share of `maxChars` kept from the end of the file. @default 0.2 */
  tailRatio?: number;
}

/** The start of every truncation marker, so callers (and models) can recognise one. */
export const TRUNCATION_MARKER_PREFIX = '[...truncated';

/**
 * Cuts `content` to at most `maxChars` characters, marker included: the head (70%) and the tail
 * (20%) are kept, and the middle is replaced by a marker that names the file and how many
 * characters were cut, so the model knows the text is incomplete and where to read the rest.
 * Content that already fits is returned unchanged. When the full marker does not fit, a short one
 * is used; when not even that fits, the result is empty (nothing useful fits).
 */
export function trimBootstrapContent(
  content: string,
  name: string,
  maxChars: number,
  options: TrimBootstrapOptions = {},
): string {
  requireOptions(options, 'trimBootstrapContent');
  const { headRatio = 0.7, tailRatio = 0.2 } = options;
  validateCharLimit(maxChars, 'maxChars');
  validateRatios(headRatio, tailRatio);
  if (content.length <= maxChars) return content;

  const markers = [
    (cut: number) =>
      `\n\n${TRUNCATION_MARKER_PREFIX} ${cut} chars, read ${name} for full content...]\n\n`,
    (cut: number) => `\n${TRUNCATION_MARKER_PREFIX} ${cut} chars...]\n`,
  ];
  for (const marker of markers) {
    // The cut count changes the marker's length, which changes how much fits: take the longest
    // marker possible (nothing kept) as the reservation, so the result can only be shorter.
    const reserved = marker(content.length).length;
    const available = maxChars - reserved;
    if (available < 0) continue;
    let headChars = Math.floor(maxChars * headRatio);
    let tailChars = Math.floor(maxChars * tailRatio);
    if (headChars + tailChars > available) {
      // Shrink both ends in proportion so the marker fits.
      const scale = available / (headChars + tailChars);
      headChars = Math.floor(headChars * scale);
      tailChars = Math.floor(tailChars * scale);
    }
    const head = withoutBrokenSurrogateAtEnd(content.slice(0, headChars));
    const tail =
      tailChars === 0
        ? ''
        : withoutBrokenSurrogateAtStart(content.slice(content.length - tailChars));
    const cut = content.length - head.length - tail.length;
    return head + marker(cut) + tail;
  }
  return '';
}

export function validateCharLimit(value: number, argument: string): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new InvalidArgumentError({
      message: `${argument} must be a non-negative integer, got ${value}`,
      argument,
    });
  }
}

export function validateRatios(headRatio: number, tailRatio: number): void {
  for (const [argument, value] of [
    ['headRatio', headRatio],
    ['tailRatio', tailRatio],
  ] as const) {
    if (!Number.isFinite(value) || value < 0 || value > 1) {
      throw new InvalidArgumentError({
        message: `${argument} must be between 0 and 1, got ${value}`,
        argument,
      });
    }
  }
  if (headRatio + tailRatio > 1) {
    throw new InvalidArgumentError({
      message: `headRatio + tailRatio must be at most 1, got ${headRatio + tailRatio}`,
      argument: 'tailRatio',
    });
  }
}

// A cut between the two halves of a surrogate pair would leave a lone surrogate (invalid UTF-16).
function withoutBrokenSurrogateAtEnd(text: string): string {
  const last = text.charCodeAt(text.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? text.slice(0, -1) : text;
}

function withoutBrokenSurrogateAtStart(text: string): string {
  const first = text.charCodeAt(0);
  return first >= 0xdc00 && first <= 0xdfff ? text.slice(1) : text;
}

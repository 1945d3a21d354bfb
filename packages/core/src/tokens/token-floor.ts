import type { TokenEncodingName } from './bpe-ranks.js';

/**
 * The longest token of `o200k_base` and of `cl100k_base`, in UTF-8 bytes (a run of spaces; checked
 * against the rank files in the tests). No token spans more bytes, so a piece of `b` bytes is at
 * least `ceil(b / 128)` tokens.
 */
export const LONGEST_TOKEN_BYTES = 128;
// `stretchTokens` divides by it with a shift.
const LONGEST_TOKEN_SHIFT = 7;

/** The pre-tokenizer splits digit runs into pieces of at most this many digits. */
const DIGITS_PER_PIECE = 3;

const OTHER = 0;
const LOWER = 1;
const UPPER = 2;
const DIGIT = 3;
const SPACE = 4;
const NEWLINE = 5;
const APOSTROPHE = 6;
const SLASH = 7;
/** Not ASCII: nothing is claimed next to it (it may be a letter, a digit or a space). */
const WIDE = 8;

/** ASCII classes by code; `OTHER` is punctuation and control characters. */
const ASCII_CLASS = new Uint8Array(128);
for (let code = 0; code < 128; code++) {
  ASCII_CLASS[code] =
    code >= 0x61 && code <= 0x7a
      ? LOWER
      : code >= 0x41 && code <= 0x5a
        ? UPPER
        : code >= 0x30 && code <= 0x39
          ? DIGIT
          : code === 0x0a || code === 0x0d
            ? NEWLINE
            : code === 0x20 || code === 0x09 || code === 0x0b || code === 0x0c
              ? SPACE
              : code === 0x27
                ? APOSTROPHE
                : code === 0x2f
                  ? SLASH
                  : OTHER;
}

const isLetter = (kind: number) => kind === LOWER || kind === UPPER;
const isPunctuation = (kind: number) => kind === OTHER || kind === APOSTROPHE || kind === SLASH;

/**
 * Whether tiktoken's pre-tokenizer surely ends a piece between two ASCII characters of classes
 * `left` and `right`, whatever surrounds them. From the patterns of both encodings:
 * - a digit is only ever in a piece of 1–3 digits (`\p{N}{1,3}`), so a digit next to anything else
 *   is a boundary;
 * - a letter piece is an optional non-letter, letters, and in o200k an optional `'s`-style suffix:
 *   a letter followed by anything but a letter or `'` is a boundary;
 * - a piece that holds a line break holds nothing after it but whitespace (and, in o200k, `/`);
 * - a punctuation piece (` ?[^\s\p{L}\p{N}]+[\r\n/]*`) never takes a following space or tab;
 * - o200k only (`splitsCase`): a lower-case letter followed by an upper-case one (`fooBar`).
 */
function isBoundary(left: number, right: number, splitsCase: boolean): boolean {
  if ((left === DIGIT) !== (right === DIGIT)) return true;
  if (isLetter(left)) {
    if (splitsCase && left === LOWER && right === UPPER) return true;
    return !isLetter(right) && right !== APOSTROPHE;
  }
  if (left === NEWLINE) return right !== SPACE && right !== NEWLINE && right !== SLASH;
  return isPunctuation(left) && right === SPACE;
}

/** Number of character classes (the ASCII ones and `WIDE`). */
const CLASSES = 9;
const NO_CLAIM = 0;
const CLAIMED = 1;
/** Next to a character that is not ASCII: no boundary, and a digit stretch stops being known. */
const UNKNOWN = 2;

/** What lies between a character of class `left` and one of class `right`: `CLAIMED`… */
function transitions(splitsCase: boolean): Uint8Array {
  // One more row, all `NO_CLAIM`: the class "before the first character".
  const table = new Uint8Array((CLASSES + 1) * CLASSES);
  for (let left = 0; left < CLASSES; left++) {
    for (let right = 0; right < CLASSES; right++) {
      table[left * CLASSES + right] =
        left === WIDE || right === WIDE
          ? UNKNOWN
          : isBoundary(left, right, splitsCase)
            ? CLAIMED
            : NO_CLAIM;
    }
  }
  return table;
}

const O200K_TRANSITIONS = transitions(true);
const CL100K_TRANSITIONS = transitions(false);

/** 1 for the digit class: a branch-free test in the loop. */
const IS_DIGIT = new Uint8Array(CLASSES);
IS_DIGIT[DIGIT] = 1;

/**
 * Class and UTF-8 bytes of every UTF-16 unit (128 kB in all): one table lookup each instead of
 * comparisons. A surrogate half counts 2 of its pair's 4 bytes; a lone one becomes U+FFFD, 3.
 */
const UNIT_CLASSES = new Uint8Array(65_536).fill(WIDE);
UNIT_CLASSES.set(ASCII_CLASS);
const UNIT_BYTES = new Uint8Array(65_536).fill(3);
UNIT_BYTES.fill(1, 0, 0x80);
UNIT_BYTES.fill(2, 0x80, 0x800);
UNIT_BYTES.fill(2, 0xd800, 0xe000);

/**
 * A lower bound of the tokens tiktoken's `encoding` gives `text` (special tokens as plain text,
 * as the exact counter counts them), in one linear pass over the characters without the
 * vocabulary: never more than the exact count, for any text. It finds where the pre-tokenizer
 * must end a piece (BPE never merges across pieces) and counts each stretch between two such
 * places as at least one token and at least one per `LONGEST_TOKEN_BYTES` bytes; a digit run is
 * exactly a piece per three digits. Only boundaries between two ASCII characters are claimed, so
 * scripts without spaces get the byte bound only.
 *
 * The error bound: it is never more than the exact count (a property test checks it on every
 * script class, lone surrogates included), so a floor over a budget means the text is over it.
 * How far below it stays (measured in `token-floor.test.ts`, o200k / cl100k): about the exact
 * count on English prose, 0.95 on hex, 0.7 on code, 0.5 on JSON, 0.67 / 0.38 on base64 and
 * 3% on CJK (only the byte bound: no spaces to claim). It decides "surely over the budget" for a
 * payload far larger than the budget without running BPE over it.
 */
export function textTokenFloor(text: string, encoding: TokenEncodingName): number {
  const table = encoding === 'o200k_base' ? O200K_TRANSITIONS : CL100K_TRANSITIONS;
  const length = text.length;
  let tokens = 0;
  // The UTF-8 bytes of the stretch since the last claimed boundary, and (1) whether it is a run
  // of ASCII digits with claimed boundaries on both sides: then it is exactly a piece per three
  // digits. The loop is written without branches on the text: base64 changes class at random, and
  // mispredicted branches would cost more than the arithmetic.
  let stretchBytes = 0;
  let digitsOnly = 1;
  let previous = CLASSES;
  for (let index = 0; index < length; index++) {
    const code = text.charCodeAt(index);
    const kind = UNIT_CLASSES[code]!;
    const between = table[previous * CLASSES + kind]!;
    const claimed = between & CLAIMED;
    tokens += claimed * stretchTokens(stretchBytes, digitsOnly);
    stretchBytes = stretchBytes * (1 - claimed) + UNIT_BYTES[code]!;
    // Claimed: a new stretch starts; unknown (next to a character that is not ASCII, which may
    // be a digit such as `²` joining the run): no longer a known digit run; else unchanged.
    const keeps = ((between + 1) >> 1) ^ 1;
    digitsOnly = ((digitsOnly & keeps) | claimed) & IS_DIGIT[kind]!;
    previous = kind;
  }
  if (stretchBytes > 0) tokens += stretchTokens(stretchBytes, digitsOnly);
  return tokens;
}

/** Tokens a stretch between two claimed boundaries has at least. */
function stretchTokens(bytes: number, digitRun: number): number {
  // Integer ceilings of bytes / 3 and bytes / 128 (0 for the empty stretch before the text).
  return digitRun === 1
    ? ((bytes + DIGITS_PER_PIECE - 1) / DIGITS_PER_PIECE) | 0
    : 1 + ((bytes - 1) >> LONGEST_TOKEN_SHIFT);
}

/**
 * Hand-written pre-tokenizers for ASCII text that cut exactly the pieces of tiktoken's regexes.
 *
 * The regexes (`js-tiktoken/ranks/*` `pat_str`) cost a match array and a substring per piece and
 * Unicode property lookups per character; on ordinary English and agent text this scanner finds
 * the same piece ends by char codes and lets the counter look the piece up without a substring.
 *
 * It only decides when every character it has to classify is ASCII. Whenever one is not (a
 * letter with an accent, CJK, an emoji, a non-breaking space…) it returns `NEEDS_REGEX` and the
 * caller runs the encoding's regex at the same position. That is exact, not an approximation:
 * the patterns have no lookbehind, so the piece starting at a position depends only on the text
 * from that position on, and both ways cut the same piece there.
 *
 * ASCII classes as the patterns see them: `\p{L}` is A–Z (`\p{Lu}`) and a–z (`\p{Ll}`), `\p{N}`
 * is 0–9, `\p{M}`/`\p{Lt}`/`\p{Lm}`/`\p{Lo}` have no ASCII members, and `\s` is tab, line feed,
 * vertical tab, form feed, carriage return and space (JavaScript's `\s`, so not \x1c–\x1f).
 */

/** What a scanner returns when a non-ASCII character decides the piece: run the regex there. */
export const NEEDS_REGEX = -1;

/** The end (exclusive) of the piece that starts at `start`, or `NEEDS_REGEX`. */
export type PieceScanner = (text: string, start: number) => number;

// The letters come first, so `kind <= UPPER` tests for a letter.
const LOWER = 1;
const UPPER = 2;
const DIGIT = 3;
/** `\r` and `\n`, which the patterns treat apart from the other whitespace. */
const LINE_BREAK = 4;
/** The space itself: ` ?` in front of punctuation accepts it and no other whitespace. */
const SPACE = 5;
/** Tab, vertical tab, form feed. */
const OTHER_SPACE = 6;
/** Anything else ASCII: `[^\s\p{L}\p{N}]`, control characters included. */
const PUNCTUATION = 7;

const CLASSES = new Uint8Array(128).fill(PUNCTUATION);
for (let code = 0x61; code <= 0x7a; code++) CLASSES[code] = LOWER;
for (let code = 0x41; code <= 0x5a; code++) CLASSES[code] = UPPER;
for (let code = 0x30; code <= 0x39; code++) CLASSES[code] = DIGIT;
CLASSES[0x0a] = LINE_BREAK;
CLASSES[0x0d] = LINE_BREAK;
CLASSES[0x20] = SPACE;
CLASSES[0x09] = OTHER_SPACE;
CLASSES[0x0b] = OTHER_SPACE;
CLASSES[0x0c] = OTHER_SPACE;

const APOSTROPHE = 0x27;
const SLASH = 0x2f;
const CARRIAGE_RETURN = 0x0d;
const NEWLINE = 0x0a;
/** `code | TO_LOWER` is the lowercase of an ASCII letter (and maps nothing else onto a letter). */
const TO_LOWER = 0x20;

/**
 * Where `('s|'S|'t|'T|'re|'rE|'Re|'RE|'ve|…|'ll|…|'d|'D)` ends when it matches at `start`, else
 * `start`. Only literal ASCII comparisons: a non-ASCII character simply does not match.
 */
function contractionEnd(text: string, start: number): number {
  if (text.charCodeAt(start) !== APOSTROPHE) return start;
  const first = text.charCodeAt(start + 1) | TO_LOWER;
  if (first === 0x73 || first === 0x74 || first === 0x6d || first === 0x64) return start + 2; // s t m d
  const second = text.charCodeAt(start + 2) | TO_LOWER;
  if (
    (second === 0x65 && (first === 0x72 || first === 0x76)) || // re ve
    (second === 0x6c && first === 0x6c) // ll
  ) {
    return start + 3;
  }
  return start;
}

/** `\p{N}{1,3}` from a digit at `start`. */
function digitsEnd(text: string, start: number): number {
  const limit = Math.min(start + 3, text.length);
  let index = start + 1;
  for (; index < limit; index++) {
    const code = text.charCodeAt(index);
    if (code >= 0x80) return NEEDS_REGEX; // may be another \p{N}
    if (CLASSES[code] !== DIGIT) break;
  }
  return index;
}

/** `wordLettersStart`'s answer when no word piece starts at the position. */
const NO_WORD = -2;

/**
 * Where the letters of a word piece from `start` begin (both patterns allow one leading character
 * that is not a line break, letter or digit — the caller has taken digits): at `start` when it is
 * a letter, one further when a letter follows such a character, else `NO_WORD`; `NEEDS_REGEX`
 * when the character that decides is not ASCII.
 */
function wordLettersStart(text: string, start: number, kind: number): number {
  if (kind <= UPPER) return start;
  if (kind === LINE_BREAK || start + 1 >= text.length) return NO_WORD;
  const next = text.charCodeAt(start + 1);
  if (next >= 0x80) return NEEDS_REGEX;
  return CLASSES[next]! <= UPPER ? start + 1 : NO_WORD;
}

/**
 * A piece from `start` that is neither a word nor digits: punctuation (` ?` lets one space lead
 * it; `slashTrails` as in `punctuationEnd`) or whitespace. `wordLettersStart` has already seen
 * that the character after `start` is ASCII.
 */
function otherPieceEnd(text: string, start: number, kind: number, slashTrails: boolean): number {
  if (kind === PUNCTUATION) return punctuationEnd(text, start, slashTrails);
  if (kind === SPACE && CLASSES[text.charCodeAt(start + 1)] === PUNCTUATION) {
    return punctuationEnd(text, start + 1, slashTrails);
  }
  return whitespaceEnd(text, start);
}

/**
 * `[^\s\p{L}\p{N}]+` from `index` (already known to be punctuation), then the longest run of
 * `trailing` characters: `[\r\n/]*` in o200k, `[\r\n]*` in cl100k. The punctuation run is greedy,
 * so `/` matters only after a line break.
 */
function punctuationEnd(text: string, index: number, slashTrails: boolean): number {
  const length = text.length;
  for (index++; index < length; index++) {
    const code = text.charCodeAt(index);
    if (code >= 0x80) return NEEDS_REGEX;
    if (CLASSES[code] !== PUNCTUATION) break;
  }
  for (; index < length; index++) {
    const code = text.charCodeAt(index);
    if (code !== NEWLINE && code !== CARRIAGE_RETURN && !(slashTrails && code === SLASH)) break;
  }
  return index;
}

/**
 * A whitespace piece from `start`: `\s*[\r\n]+` ends after the run's last line break (greedy
 * `\s*` backs off to it); without one, `\s+(?!\S)` takes the whole run at the end of the text and
 * all but its last character before a non-space (that character leads the next piece), and a
 * single whitespace character falls through to `\s+`.
 */
function whitespaceEnd(text: string, start: number): number {
  const length = text.length;
  let lastLineBreak = -1;
  let index = start;
  for (; index < length; index++) {
    const code = text.charCodeAt(index);
    if (code >= 0x80) return NEEDS_REGEX; // may be more whitespace (U+00A0, U+3000…)
    const kind = CLASSES[code];
    if (kind === LINE_BREAK) lastLineBreak = index;
    else if (kind !== SPACE && kind !== OTHER_SPACE) break;
  }
  if (lastLineBreak >= 0) return lastLineBreak + 1;
  if (index === length || index - start === 1) return index;
  return index - 1;
}

/**
 * The pieces of o200k_base's pattern:
 * `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(contraction)?`,
 * `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(contraction)?`,
 * `\p{N}{1,3}`, ` ?[^\s\p{L}\p{N}]+[\r\n/]*`, `\s*[\r\n]+`, `\s+(?!\S)`, `\s+`.
 */
function o200kPieceEnd(text: string, start: number): number {
  const first = text.charCodeAt(start);
  if (first >= 0x80) return NEEDS_REGEX;
  const kind = CLASSES[first]!;
  if (kind === DIGIT) return digitsEnd(text, start);
  const letters = wordLettersStart(text, start, kind);
  if (letters === NEEDS_REGEX) return NEEDS_REGEX;
  if (letters >= 0) {
    // Both word alternatives come to the same in ASCII: an uppercase run, then a lowercase run
    // (so `helloWorld` splits before `W` and `HTMLParser` stays whole), then a contraction.
    const length = text.length;
    let index = letters;
    let code = text.charCodeAt(index);
    while (code >= 0x41 && code <= 0x5a && ++index < length) code = text.charCodeAt(index);
    while (code >= 0x61 && code <= 0x7a && ++index < length) code = text.charCodeAt(index);
    if (index === length) return index;
    if (code === APOSTROPHE) return contractionEnd(text, index);
    return code >= 0x80 ? NEEDS_REGEX : index; // may be a letter or a mark
  }
  return otherPieceEnd(text, start, kind, true);
}

/**
 * The pieces of cl100k_base's pattern: `(contraction)`, `[^\r\n\p{L}\p{N}]?\p{L}+`, `\p{N}{1,3}`,
 * ` ?[^\s\p{L}\p{N}]+[\r\n]*`, `\s*[\r\n]+`, `\s+(?!\S)`, `\s+`.
 */
function cl100kPieceEnd(text: string, start: number): number {
  const first = text.charCodeAt(start);
  if (first >= 0x80) return NEEDS_REGEX;
  if (first === APOSTROPHE) {
    const end = contractionEnd(text, start);
    if (end > start) return end;
  }
  const kind = CLASSES[first]!;
  if (kind === DIGIT) return digitsEnd(text, start);
  const letters = wordLettersStart(text, start, kind);
  if (letters === NEEDS_REGEX) return NEEDS_REGEX;
  if (letters >= 0) {
    // Letters of either case, with no split and no contraction.
    const length = text.length;
    let index = letters;
    let code = text.charCodeAt(index);
    // `code | TO_LOWER` is a–z exactly for the ASCII letters of either case.
    while ((code | TO_LOWER) >= 0x61 && (code | TO_LOWER) <= 0x7a && ++index < length) {
      code = text.charCodeAt(index);
    }
    if (index === length) return index;
    return code >= 0x80 ? NEEDS_REGEX : index; // may be a letter
  }
  return otherPieceEnd(text, start, kind, false);
}

/** The patterns the scanners were written from, exactly as js-tiktoken ships them. */
const CONTRACTIONS = "'s|'S|'t|'T|'re|'rE|'Re|'RE|'ve|'vE|'Ve|'VE|'m|'M|'ll|'lL|'Ll|'LL|'d|'D";
const O200K_PATTERN = `[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(${CONTRACTIONS})?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(${CONTRACTIONS})?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+`;
const CL100K_PATTERN = `(${CONTRACTIONS})|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+`;

// As `RegExp.prototype.source` spells them (it escapes the `/`).
const O200K_SOURCE = new RegExp(O200K_PATTERN, 'u').source;
const CL100K_SOURCE = new RegExp(CL100K_PATTERN, 'u').source;

/**
 * The ASCII scanner for a tiktoken pattern, chosen by the pattern's text rather than the
 * encoding's name: if a js-tiktoken release ever changes a pattern, counting falls back to the
 * regex alone instead of cutting pieces the new pattern would not.
 */
export function asciiPieceScanner(pattern: RegExp): PieceScanner | undefined {
  if (pattern.source === O200K_SOURCE) return o200kPieceEnd;
  if (pattern.source === CL100K_SOURCE) return cl100kPieceEnd;
  return undefined;
}

/**
 * The pieces of `text`, cut as the counter cuts them: the scanner where it decides, else the
 * global `pattern` from that position (a copy: its `lastIndex` is used). Same loop as the
 * counter's; kept for tests that compare it with the regex alone.
 */
export function preTokenize(pattern: RegExp, text: string): string[] {
  const scan = asciiPieceScanner(pattern);
  const regex = new RegExp(pattern);
  const pieces: string[] = [];
  let position = 0;
  while (position < text.length) {
    const end = scan === undefined ? NEEDS_REGEX : scan(text, position);
    if (end !== NEEDS_REGEX) {
      pieces.push(text.slice(position, end));
      position = end;
      continue;
    }
    regex.lastIndex = position;
    const match = regex.exec(text);
    if (match === null) break;
    if (match[0].length === 0) {
      position = match.index + 1;
      continue;
    }
    pieces.push(match[0]);
    position = regex.lastIndex;
  }
  return pieces;
}

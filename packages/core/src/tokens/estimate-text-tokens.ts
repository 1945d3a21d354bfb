/*
 * Cost of each character class, fitted on hand-written samples against o200k_base (see
 * `estimate-text-tokens.test.ts` for the samples and the error each one stays within).
 */

/** Letters per token in a word of ASCII letters (a word's first token is always paid). */
const ASCII_LETTERS_PER_TOKEN = 7;
/** Letters per token for letters of other alphabets (accented Latin, Greek, Cyrillic…). */
const OTHER_LETTERS_PER_TOKEN = 5;
/** Tokens per Han character (Chinese, Japanese kanji). */
const HAN_TOKENS = 0.8;
/** Tokens per kana character. */
const KANA_TOKENS = 0.75;
/** Tokens per Hangul syllable. */
const HANGUL_TOKENS = 0.75;
/** Tokens per character of scripts the vocabulary covers thinly (Arabic, Hebrew, Indic, Thai…). */
const THIN_SCRIPT_TOKENS = 0.5;
/** Tokens per emoji or other astral-plane character. */
const ASTRAL_TOKENS = 1.5;
/** ASCII punctuation characters per token (`":"`, `");` and `//` are single tokens). */
const PUNCTUATION_PER_TOKEN = 2;
/** Digits per token (the pre-tokenizer splits numbers into groups of three). */
const DIGITS_PER_TOKEN = 3;
/** Characters per token of base64, hashes and other random-looking ASCII. */
const DENSE_CHARACTERS_PER_TOKEN = 1.6;
/** Shortest run of `[A-Za-z0-9+/=_-]` checked for looking random. */
const DENSE_MIN_LENGTH = 24;

const SPACE = 0;
const ASCII_LETTER = 1;
const DIGIT = 2;
const PUNCTUATION = 3;
const OTHER_LETTER = 4;
const HAN = 5;
const KANA = 6;
const HANGUL = 7;
const THIN_SCRIPT = 8;
const ASTRAL = 9;
const SYMBOL = 10;

function kindOf(code: number): number {
  if (code < 0x80) {
    if (code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d) return SPACE;
    if ((code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a)) return ASCII_LETTER;
    if (code >= 0x30 && code <= 0x39) return DIGIT;
    if (code < 0x20 || code === 0x7f) return SYMBOL;
    return PUNCTUATION;
  }
  if (code >= 0x4e00 && code <= 0x9fff) return HAN;
  if (code >= 0x3400 && code <= 0x4dbf) return HAN;
  if (code >= 0x3040 && code <= 0x30ff) return KANA;
  if (code >= 0xac00 && code <= 0xd7af) return HANGUL;
  if (code >= 0xd800 && code <= 0xdbff) return ASTRAL;
  if (code >= 0xc0 && code <= 0x052f && code !== 0xd7 && code !== 0xf7) return OTHER_LETTER;
  if (code >= 0x0590 && code <= 0x0fff) return THIN_SCRIPT;
  if (code >= 0x1e00 && code <= 0x1fff) return OTHER_LETTER;
  if (code === 0xa0 || code === 0x3000 || (code >= 0x2000 && code <= 0x200a)) return SPACE;
  return SYMBOL;
}

function isUpper(code: number): boolean {
  return code >= 0x41 && code <= 0x5a;
}

function isLetterKind(kind: number): boolean {
  return kind === ASCII_LETTER || kind === OTHER_LETTER;
}

/**
 * The end of the run of `[A-Za-z0-9+/=_-]` that starts at `start`, negated and minus one when the
 * run does not look random (so the caller can skip checking again inside it). Random means: long,
 * no spaces, and digits and both cases mixed in.
 */
function denseRunEnd(text: string, start: number): number {
  let index = start;
  let digits = 0;
  let upper = 0;
  let lower = 0;
  while (index < text.length) {
    const code = text.charCodeAt(index);
    if (code >= 0x30 && code <= 0x39) digits++;
    else if (code >= 0x41 && code <= 0x5a) upper++;
    else if (code >= 0x61 && code <= 0x7a) lower++;
    else if (code !== 0x2b && code !== 0x2f && code !== 0x3d && code !== 0x5f && code !== 0x2d) {
      break;
    }
    index++;
  }
  const length = index - start;
  // Identifiers like `getOrCreateSessionContext` mix cases but rarely digits; base64 and hashes
  // have digits spread through them.
  const dense =
    length >= DENSE_MIN_LENGTH &&
    digits * 12 >= length &&
    upper * 6 >= length &&
    lower * 6 >= length;
  return dense ? index : -index - 1;
}

/**
 * A fast estimate of the tokens of `text` for a modern BPE vocabulary (o200k_base), from character
 * classes alone. ASCII words cost a token per started seven letters and are split where the
 * pre-tokenizer splits them (`camelCase` is two words); other alphabets a token per five letters;
 * numbers one per three digits; punctuation one per two characters (a mark right before a word
 * joins it); Han characters 0.8 tokens, kana and Hangul 0.75; emoji 1.5; base64 and
 * hashes 1.6 characters per token. Single spaces are free (they join the next word); other
 * whitespace runs cost one token.
 */
export function estimateTextTokens(text: string): number {
  const length = text.length;
  let tokens = 0;
  let index = 0;
  // Positions before this lie in a run already found not to look random: checking again from each
  // word inside it would rescan the run and make a long break-free run quadratic.
  let plainRunEnd = 0;
  while (index < length) {
    const code = text.charCodeAt(index);
    const kind = kindOf(code);
    switch (kind) {
      case ASCII_LETTER:
      case OTHER_LETTER:
      case DIGIT: {
        if (kind !== OTHER_LETTER && index >= plainRunEnd && length - index >= DENSE_MIN_LENGTH) {
          const end = denseRunEnd(text, index);
          if (end >= 0) {
            tokens += (end - index) / DENSE_CHARACTERS_PER_TOKEN;
            index = end;
            break;
          }
          plainRunEnd = -end - 1;
        }
        if (kind === DIGIT) {
          const start = index;
          while (index < length && kindOf(text.charCodeAt(index)) === DIGIT) index++;
          tokens += Math.ceil((index - start) / DIGITS_PER_TOKEN);
          break;
        }
        let asciiLetters = 0;
        let otherLetters = 0;
        let previousUpper = false;
        while (index < length) {
          const next = text.charCodeAt(index);
          const nextKind = kindOf(next);
          if (!isLetterKind(nextKind)) break;
          const upper = isUpper(next);
          // The pre-tokenizer starts a new piece at a lower → upper change (`fooBar`).
          if (upper && !previousUpper && asciiLetters + otherLetters > 0) {
            tokens += Math.ceil(
              asciiLetters / ASCII_LETTERS_PER_TOKEN + otherLetters / OTHER_LETTERS_PER_TOKEN,
            );
            asciiLetters = 0;
            otherLetters = 0;
          }
          previousUpper = upper;
          if (nextKind === ASCII_LETTER) asciiLetters++;
          else otherLetters++;
          index++;
        }
        tokens += Math.ceil(
          asciiLetters / ASCII_LETTERS_PER_TOKEN + otherLetters / OTHER_LETTERS_PER_TOKEN,
        );
        break;
      }
      case PUNCTUATION: {
        const start = index;
        while (index < length && kindOf(text.charCodeAt(index)) === PUNCTUATION) index++;
        let characters = index - start;
        // One mark right before a word joins it (`"name`, `.then`).
        if (index < length && isLetterKind(kindOf(text.charCodeAt(index)))) characters--;
        tokens += Math.ceil(characters / PUNCTUATION_PER_TOKEN);
        break;
      }
      case SPACE: {
        const start = index;
        let lineStart = -1;
        while (index < length && kindOf(text.charCodeAt(index)) === SPACE) {
          const next = text.charCodeAt(index);
          index++;
          if (next === 0x0a || next === 0x0d) lineStart = index;
        }
        if (lineStart === -1) {
          // A lone space joins the word after it; anything longer is at least one token.
          if (index - start > 1 || code !== 0x20) tokens += 1;
        } else {
          // Line breaks are one token, and indentation deeper than one space another.
          tokens += index - lineStart > 1 ? 2 : 1;
        }
        break;
      }
      case HAN:
        tokens += HAN_TOKENS;
        index++;
        break;
      case KANA:
        tokens += KANA_TOKENS;
        index++;
        break;
      case HANGUL:
        tokens += HANGUL_TOKENS;
        index++;
        break;
      case THIN_SCRIPT:
        tokens += THIN_SCRIPT_TOKENS;
        index++;
        break;
      case ASTRAL:
        tokens += ASTRAL_TOKENS;
        index += 2;
        break;
      default:
        tokens += 1;
        index++;
    }
  }
  return Math.ceil(tokens);
}

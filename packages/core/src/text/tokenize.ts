import { lazy } from '../cache/index.js';
import { InvalidArgumentError } from '../errors/index.js';

/**
 * One character of Chinese, Japanese or Korean: ideographs, kana, hangul, and the iteration
 * marks and prolonged sound mark that belong inside words. These scripts write words without
 * spaces, so their runs are split by n-grams or a dictionary instead of at spaces.
 */
export const CJK_CHARACTER = String.raw`[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}々〆ー]`;

// CJK characters are letters too: a word stops where a CJK run starts ("GPU选型" → "gpu", "选型").
const wordRun = String.raw`(?:(?!${CJK_CHARACTER})[\p{L}\p{M}\p{N}])+`;
// Compiled on first use: parsing its Unicode property classes is work every importer would pay.
const tokenPattern = lazy(() => new RegExp(`(${CJK_CHARACTER}+)|(${wordRun})`, 'gu'));

/** A run of CJK characters, or a word of other letters, marks and digits. */
export type TextToken = { cjk: string; word?: undefined } | { word: string; cjk?: undefined };

/**
 * The form every comparison of words starts from: NFKC (full-width letters and digits become
 * ASCII, ligatures split) and lower case.
 */
export function normalizeText(text: string): string {
  return text.normalize('NFKC').toLowerCase();
}

/**
 * The tokens of `text` in order: words split at anything that is not a letter, mark or digit (so
 * `ana's` gives `ana` and `s`), and CJK runs whole. Linear in the length of the text.
 */
export function* tokenize(text: string): Generator<TextToken> {
  for (const match of text.matchAll(tokenPattern())) {
    const [, cjk, word] = match;
    if (cjk !== undefined) yield { cjk };
    else if (word !== undefined) yield { word };
  }
}

/** Shortest and longest n-gram, in characters. */
export interface NgramSizes {
  min: number;
  max: number;
}

/** Throws `InvalidArgumentError` unless `1 <= min <= max` are integers. */
export function checkNgramSizes({ min, max }: NgramSizes, argument = 'cjkNgrams'): void {
  if (!Number.isInteger(min) || !Number.isInteger(max) || min < 1 || max < min) {
    throw new InvalidArgumentError({
      message: `${argument} must be integers with 1 <= min <= max, got min ${min} and max ${max}`,
      argument,
    });
  }
}

/**
 * Every substring of `min` to `max` characters of a CJK run, shortest first; a run shorter than
 * `min` is one term. Counted in code points, so characters outside the BMP are never cut in half.
 */
export function cjkNgrams(run: string, { min, max }: NgramSizes): string[] {
  const characters = Array.from(run);
  if (characters.length < min) return [run];
  const grams: string[] = [];
  for (let size = min; size <= max; size++) {
    for (let start = 0; start + size <= characters.length; start++) {
      grams.push(characters.slice(start, start + size).join(''));
    }
  }
  return grams;
}

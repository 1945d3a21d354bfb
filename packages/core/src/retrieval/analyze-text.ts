import { InvalidArgumentError } from '../errors/index.js';
import { IRREGULAR_FORMS } from './irregular-forms.js';
import { stemEnglishLight, stemEnglishPorter } from './stem-english.js';
import { ENGLISH_STOP_WORDS } from './stop-words.js';

/** Turns text into index terms. The same analyzer must be used for documents and queries. */
export type TextAnalyzer = (text: string) => string[];

export interface TextAnalyzerOptions {
  /**
   * How English (and other space-separated) words are reduced: `porter` (the Porter stemmer),
   * `light` (plurals only) or `none`. Porter measured best on LoCoMo.
   * @default 'porter'
   */
  stemmer?: 'porter' | 'light' | 'none';
  /**
   * Words dropped after lower-casing (before stemming), or `false` to keep every word.
   * @default ENGLISH_STOP_WORDS
   */
  stopWords?: ReadonlySet<string> | false;
  /**
   * Maps irregular forms to their base form before stemming (`went` → `go`, `children` →
   * `child`), so questions in the base form find memories in the past tense.
   * @default true
   */
  irregularForms?: boolean;
  /**
   * How runs of Chinese, Japanese and Korean characters (which have no spaces between words) are
   * split: `ngrams` (every 2- to 4-character substring, as the MaxAgent design does), `segmenter`
   * (dictionary words from `Intl.Segmenter`), or `both`.
   * @default 'ngrams'
   */
  cjk?: 'ngrams' | 'segmenter' | 'both';
  /**
   * Shortest and longest CJK n-gram. A run shorter than `min` becomes one term.
   * @default { min: 2, max: 4 }
   */
  cjkNgrams?: { min: number; max: number };
  /**
   * Locale of the `Intl.Segmenter` used when `cjk` is `segmenter` or `both`.
   * @default 'ja'
   */
  segmenterLocale?: string;
}

/**
 * A run of CJK ideographs, kana or hangul (with the iteration marks and the prolonged sound mark
 * that belong inside words), or a run of other letters and digits.
 */
const cjkCharacter = String.raw`[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}々〆ー]`;
const cjkRun = `${cjkCharacter}+`;
// CJK characters are letters too: a word stops where a CJK run starts ("GPU选型" → "gpu", "选型").
const wordRun = String.raw`(?:(?!${cjkCharacter})[\p{L}\p{M}\p{N}])+`;
const tokenPattern = new RegExp(`(${cjkRun})|(${wordRun})`, 'gu');
/** `don't`, `won't`, `isn't`, ...: auxiliaries with a negation, all function words. */
const negatedAuxiliary = /[\p{L}]+n['’]t(?![\p{L}])/gu;

function checkNgramSizes({ min, max }: { min: number; max: number }): void {
  if (!Number.isInteger(min) || !Number.isInteger(max) || min < 1 || max < min) {
    throw new InvalidArgumentError({
      message: `cjkNgrams must be integers with 1 <= min <= max, got min ${min} and max ${max}`,
      argument: 'cjkNgrams',
    });
  }
}

function pushNgrams(run: string, min: number, max: number, terms: string[]): void {
  // Code points, not UTF-16 units, so characters outside the BMP are never cut in half.
  const characters = Array.from(run);
  if (characters.length < min) {
    terms.push(run);
    return;
  }
  for (let size = min; size <= max; size++) {
    for (let start = 0; start + size <= characters.length; start++) {
      terms.push(characters.slice(start, start + size).join(''));
    }
  }
}

/**
 * Builds an analyzer: NFKC normalisation (full-width letters and digits become ASCII), lower
 * case, words split at anything that is not a letter, mark or digit (so `Caroline's` gives
 * `caroline` and `s`), stop words removed, words stemmed, CJK runs split into n-grams or
 * dictionary words.
 */
export function createTextAnalyzer({
  stemmer = 'porter',
  stopWords = ENGLISH_STOP_WORDS,
  irregularForms = true,
  cjk = 'ngrams',
  cjkNgrams = { min: 2, max: 4 },
  segmenterLocale = 'ja',
}: TextAnalyzerOptions = {}): TextAnalyzer {
  checkNgramSizes(cjkNgrams);
  const stem =
    stemmer === 'porter'
      ? stemEnglishPorter
      : stemmer === 'light'
        ? stemEnglishLight
        : (word: string) => word;
  const segmenter =
    cjk === 'ngrams' ? undefined : new Intl.Segmenter(segmenterLocale, { granularity: 'word' });
  const stopSet = stopWords === false ? undefined : stopWords;

  return (text: string): string[] => {
    const terms: string[] = [];
    const normalized = text.normalize('NFKC').toLowerCase();
    const withoutNegations = stopSet ? normalized.replace(negatedAuxiliary, ' ') : normalized;
    for (const match of withoutNegations.matchAll(tokenPattern)) {
      const [, cjkText, word] = match;
      if (cjkText !== undefined) {
        if (cjk !== 'segmenter') pushNgrams(cjkText, cjkNgrams.min, cjkNgrams.max, terms);
        if (segmenter) {
          for (const segment of segmenter.segment(cjkText)) {
            // With `both`, n-grams already cover the short words; keep only the longer ones.
            const length = Array.from(segment.segment).length;
            if (cjk === 'segmenter' || length > cjkNgrams.max) terms.push(segment.segment);
          }
        }
      } else if (word !== undefined) {
        if (stopSet?.has(word)) continue;
        terms.push(stem((irregularForms && IRREGULAR_FORMS.get(word)) || word));
      }
    }
    return terms;
  };
}

/** The default analyzer (`createTextAnalyzer()` with its defaults). */
export const analyzeText: TextAnalyzer = createTextAnalyzer();

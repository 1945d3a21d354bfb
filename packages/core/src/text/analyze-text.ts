import { requireOptions } from '../validation/index.js';
import { IRREGULAR_FORMS } from './irregular-forms.js';
import { stemEnglishPorter } from './stem-english.js';
import { ENGLISH_STOP_WORDS } from './stop-words.js';
import { checkNgramSizes, cjkNgrams as ngramsOf, normalizeText, tokenize } from './tokenize.js';

/** Turns text into index terms. The same analyzer must be used for documents and queries. */
export type TextAnalyzer = (text: string) => string[];

export interface TextAnalyzerOptions {
  /**
   * How English (and other space-separated) words are reduced: `porter` (the Porter stemmer of
   * the `stemmer` package) or `none`. Porter measured best on LoCoMo.
   * @default 'porter'
   */
  stemmer?: 'porter' | 'none';
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
 * `don't`, `won't`, `isn't`, ...: auxiliaries with a negation, all function words. Matched from
 * the start of a word only: tried at every letter, a long run of letters (a CJK document) would be
 * scanned again from each of them, which is quadratic.
 */
const negatedAuxiliary = /(?<!\p{L})\p{L}+n['’]t(?!\p{L})/gu;

/**
 * Builds an analyzer: NFKC normalisation (full-width letters and digits become ASCII), lower
 * case, words split at anything that is not a letter, mark or digit (so `Ana's` gives
 * `ana` and `s`), stop words removed, words stemmed, CJK runs split into n-grams or
 * dictionary words.
 */
export function createTextAnalyzer(options: TextAnalyzerOptions = {}): TextAnalyzer {
  const {
    stemmer = 'porter',
    stopWords = ENGLISH_STOP_WORDS,
    irregularForms = true,
    cjk = 'ngrams',
    cjkNgrams = { min: 2, max: 4 },
    segmenterLocale = 'ja',
  } = requireOptions(options, 'createTextAnalyzer');
  checkNgramSizes(cjkNgrams);
  const stem = stemmer === 'porter' ? stemEnglishPorter : (word: string) => word;
  const segmenter =
    cjk === 'ngrams' ? undefined : new Intl.Segmenter(segmenterLocale, { granularity: 'word' });
  const stopSet = stopWords === false ? undefined : stopWords;

  return (text: string): string[] => {
    const terms: string[] = [];
    const normalized = normalizeText(text);
    const withoutNegations = stopSet ? normalized.replace(negatedAuxiliary, ' ') : normalized;
    for (const { cjk: cjkText, word } of tokenize(withoutNegations)) {
      if (cjkText !== undefined) {
        // A loop, not a spread: a long CJK document has more n-grams than a call takes arguments.
        if (cjk !== 'segmenter') for (const gram of ngramsOf(cjkText, cjkNgrams)) terms.push(gram);
        if (segmenter) {
          for (const segment of segmenter.segment(cjkText)) {
            // With `both`, n-grams already cover the short words; keep only the longer ones.
            const length = Array.from(segment.segment).length;
            if (cjk === 'segmenter' || length > cjkNgrams.max) terms.push(segment.segment);
          }
        }
      } else if (word !== undefined && !stopSet?.has(word)) {
        terms.push(stem((irregularForms && IRREGULAR_FORMS.get(word)) || word));
      }
    }
    return terms;
  };
}

/** The default analyzer (`createTextAnalyzer()` with its defaults). */
export const analyzeText: TextAnalyzer = createTextAnalyzer();

import { stemmer } from 'stemmer';
import { IRREGULAR_FORMS } from './irregular-forms.js';

/** Only plain a–z words are stemmed: digits, accents and other scripts have no English suffixes. */
const plainWord = /^[a-z]+$/;

/**
 * The Porter (1980) stemmer of Porter's reference implementation (the maintained `stemmer`
 * package): `painting`, `painted`, `paints` → `paint`. Takes one lower-case word; words of one
 * or two letters and anything that is not a plain a–z word come back unchanged.
 */
export function stemEnglishPorter(word: string): string {
  return word.length <= 2 || !plainWord.test(word) ? word : stemmer(word);
}

/**
 * One lower-case English word reduced to the form every index and comparison in ctxmem uses: an
 * irregular form mapped to its base (`went` → `go`, `children` → `child`), which no suffix
 * stemmer can do, then the Porter stem.
 */
export function stemEnglish(word: string): string {
  return stemEnglishPorter(IRREGULAR_FORMS.get(word) ?? word);
}

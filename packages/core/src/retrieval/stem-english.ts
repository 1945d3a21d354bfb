/**
 * English stemmers. Both take one lower-case word and return its stem; anything that is not a
 * plain a–z word (digits, accents, other scripts) comes back unchanged.
 */

const plainWord = /^[a-z]+$/;

/**
 * The "S" stemmer (Harman 1991): only folds plurals (`parties` → `party`, `plans` → `plan`).
 * Conservative: it never merges words of different meaning.
 */
export function stemEnglishLight(word: string): string {
  if (word.length <= 3 || !plainWord.test(word)) return word;
  if (word.endsWith('ies') && !word.endsWith('eies') && !word.endsWith('aies')) {
    return `${word.slice(0, -3)}y`;
  }
  if (word.endsWith('es') && !/(?:aes|ees|oes)$/.test(word)) return word.slice(0, -1);
  if (word.endsWith('s') && !word.endsWith('us') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

function isConsonant(word: string, index: number): boolean {
  const letter = word[index];
  switch (letter) {
    case 'a':
    case 'e':
    case 'i':
    case 'o':
    case 'u':
      return false;
    case 'y':
      return index === 0 ? true : !isConsonant(word, index - 1);
    default:
      return true;
  }
}

/** Porter's m: the number of vowel–consonant sequences in `stem`. */
function measure(stem: string): number {
  let count = 0;
  let index = 0;
  const length = stem.length;
  while (index < length && isConsonant(stem, index)) index++;
  while (index < length) {
    while (index < length && !isConsonant(stem, index)) index++;
    if (index >= length) break;
    while (index < length && isConsonant(stem, index)) index++;
    count++;
  }
  return count;
}

function containsVowel(stem: string): boolean {
  for (let index = 0; index < stem.length; index++) {
    if (!isConsonant(stem, index)) return true;
  }
  return false;
}

function endsWithDoubleConsonant(stem: string): boolean {
  const length = stem.length;
  return length >= 2 && stem[length - 1] === stem[length - 2] && isConsonant(stem, length - 1);
}

/** Porter's *o: consonant–vowel–consonant at the end, the last not w, x or y. */
function endsWithCvc(stem: string): boolean {
  const length = stem.length;
  if (length < 3) return false;
  if (!isConsonant(stem, length - 1) || isConsonant(stem, length - 2)) return false;
  if (!isConsonant(stem, length - 3)) return false;
  const last = stem[length - 1];
  return last !== 'w' && last !== 'x' && last !== 'y';
}

type Rule = readonly [suffix: string, replacement: string];

const step2Rules: readonly Rule[] = [
  ['ational', 'ate'],
  ['tional', 'tion'],
  ['enci', 'ence'],
  ['anci', 'ance'],
  ['izer', 'ize'],
  ['bli', 'ble'],
  ['alli', 'al'],
  ['entli', 'ent'],
  ['eli', 'e'],
  ['ousli', 'ous'],
  ['ization', 'ize'],
  ['ation', 'ate'],
  ['ator', 'ate'],
  ['alism', 'al'],
  ['iveness', 'ive'],
  ['fulness', 'ful'],
  ['ousness', 'ous'],
  ['aliti', 'al'],
  ['iviti', 'ive'],
  ['biliti', 'ble'],
  ['logi', 'log'],
];

const step3Rules: readonly Rule[] = [
  ['icate', 'ic'],
  ['ative', ''],
  ['alize', 'al'],
  ['iciti', 'ic'],
  ['ical', 'ic'],
  ['ful', ''],
  ['ness', ''],
];

const step4Suffixes: readonly string[] = [
  'ement',
  'ment',
  'ance',
  'ence',
  'able',
  'ible',
  'ant',
  'ent',
  'ism',
  'ate',
  'iti',
  'ous',
  'ive',
  'ize',
  'ion',
  'al',
  'er',
  'ic',
  'ou',
];

/** Applies the first rule whose suffix matches (longest listed first), if its stem has m > `minimum`. */
function applyRules(word: string, rules: readonly Rule[], minimum: number): string {
  for (const [suffix, replacement] of rules) {
    if (!word.endsWith(suffix)) continue;
    const stem = word.slice(0, word.length - suffix.length);
    return measure(stem) > minimum ? stem + replacement : word;
  }
  return word;
}

function step1a(word: string): string {
  if (word.endsWith('sses')) return word.slice(0, -2);
  if (word.endsWith('ies')) return word.slice(0, -2);
  if (word.endsWith('ss')) return word;
  if (word.endsWith('s')) return word.slice(0, -1);
  return word;
}

function step1b(word: string): string {
  if (word.endsWith('eed')) {
    return measure(word.slice(0, -3)) > 0 ? word.slice(0, -1) : word;
  }
  let stem: string | undefined;
  if (word.endsWith('ed') && containsVowel(word.slice(0, -2))) stem = word.slice(0, -2);
  else if (word.endsWith('ing') && containsVowel(word.slice(0, -3))) stem = word.slice(0, -3);
  if (stem === undefined) return word;
  if (stem.endsWith('at') || stem.endsWith('bl') || stem.endsWith('iz')) return `${stem}e`;
  if (endsWithDoubleConsonant(stem) && !/[lsz]$/.test(stem)) return stem.slice(0, -1);
  if (measure(stem) === 1 && endsWithCvc(stem)) return `${stem}e`;
  return stem;
}

function step1c(word: string): string {
  return word.endsWith('y') && containsVowel(word.slice(0, -1)) ? `${word.slice(0, -1)}i` : word;
}

function step4(word: string): string {
  for (const suffix of step4Suffixes) {
    if (!word.endsWith(suffix)) continue;
    const stem = word.slice(0, word.length - suffix.length);
    if (measure(stem) <= 1) return word;
    if (suffix === 'ion' && !/[st]$/.test(stem)) return word;
    return stem;
  }
  return word;
}

function step5(word: string): string {
  let result = word;
  if (result.endsWith('e')) {
    const stem = result.slice(0, -1);
    const m = measure(stem);
    if (m > 1 || (m === 1 && !endsWithCvc(stem))) result = stem;
  }
  if (result.endsWith('ll') && measure(result) > 1) result = result.slice(0, -1);
  return result;
}

/**
 * The Porter (1980) stemmer, with the two later amendments of Porter's reference implementation
 * (`bli` → `ble`, `logi` → `log`): `painting`, `painted`, `paints` → `paint`.
 */
export function stemEnglishPorter(word: string): string {
  if (word.length <= 2 || !plainWord.test(word)) return word;
  let result = step1a(word);
  result = step1b(result);
  result = step1c(result);
  result = applyRules(result, step2Rules, 0);
  result = applyRules(result, step3Rules, 0);
  result = step4(result);
  return step5(result);
}

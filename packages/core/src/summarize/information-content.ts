import { cjkNgrams, stemEnglish } from '../text/index.js';
import { UNINFORMATIVE_WORDS } from './cue-words.js';

/** A word of a sentence that may carry information, with how much its form suggests it does. */
export interface ContentWord {
  /** Lowercase form that occurrences are counted by. */
  key: string;
  /** Numbers, names and identifiers are worth more than ordinary words of the same rarity. */
  boost: number;
}

const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]+/gu;
const HAS_CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
/** A word, number or identifier: inner dots, slashes, dashes and apostrophes stay in it. */
const WORD = /[\p{L}\p{N}_](?:[\p{L}\p{N}_'’./@#+-]*[\p{L}\p{N}_])?/gu;
const DIGIT = /\d/;
/** Inner punctuation or a lower-case letter before a capital: `user_id`, `a.b`, `camelCase`. */
const IDENTIFIER_MARK = /[./@#_]|\p{Ll}\p{Lu}/u;
const CAPITAL_FIRST = /^\p{Lu}/u;
const NUMBER_BOOST = 1.5;
const NAME_BOOST = 1.3;
const IDENTIFIER_BOOST = 1.5;
/**
 * Overlapping character pairs count each character twice and are rarer than words, so a pair
 * is worth half a word.
 */
const CJK_PAIR_BOOST = 0.5;

/**
 * The words of `text` that can carry information, each once: function words and small talk are
 * left out, ordinary words are stemmed as in search; CJK text, written without spaces, is read as
 * overlapping character pairs.
 */
export function contentWords(text: string): ContentWord[] {
  const words = new Map<string, number>();
  const add = (key: string, boost: number) => {
    if (boost > (words.get(key) ?? 0)) words.set(key, boost);
  };
  const hasCjk = HAS_CJK.test(text);
  for (const run of hasCjk ? text.matchAll(CJK_RUN) : []) {
    for (const pair of cjkNgrams(run[0], { min: 2, max: 2 })) add(pair, CJK_PAIR_BOOST);
  }
  const latin = hasCjk ? text.replace(CJK_RUN, ' ') : text;
  for (const match of latin.matchAll(WORD)) {
    const word = match[0];
    let key = word.toLowerCase();
    if (key.includes('’')) key = key.replaceAll('’', "'");
    if (key.endsWith("'s")) key = key.slice(0, -2);
    if (UNINFORMATIVE_WORDS.has(key)) continue;
    if (DIGIT.test(key)) {
      add(key, NUMBER_BOOST);
    } else if (IDENTIFIER_MARK.test(word)) {
      add(key, IDENTIFIER_BOOST);
    } else if (key.length >= 2) {
      const name = CAPITAL_FIRST.test(word) && !startsSentence(latin, match.index);
      // Stemmed as in search, so "paint", "painted" and "painting" count as one word.
      add(stemEnglish(key), name ? NAME_BOOST : 1);
    }
  }
  return [...words].map(([key, boost]) => ({ key, boost }));
}

/**
 * How much each word tells, from how many of the `documents` (lists of word keys) contain it: a
 * word found everywhere (the speakers' names, the topic of the whole chat) tells little, a word
 * found once tells a lot (inverse document frequency).
 */
export function wordInformation(
  documents: ReadonlyArray<readonly ContentWord[]>,
): (key: string) => number {
  const frequency = new Map<string, number>();
  for (const words of documents) {
    for (const word of words) frequency.set(word.key, (frequency.get(word.key) ?? 0) + 1);
  }
  const total = documents.length + 1;
  return (key) => Math.log(total / (frequency.get(key) ?? 1));
}

/** Whether the word at `index` opens a sentence (a capital there says nothing about a name). */
function startsSentence(text: string, index: number): boolean {
  let position = index - 1;
  while (
    position >= 0 &&
    (text[position] === ' ' || text[position] === '"' || text[position] === '(')
  ) {
    position--;
  }
  return position < 0 || '.!?:;\n'.includes(text[position]!);
}

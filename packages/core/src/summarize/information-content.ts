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
 * overlapping character pairs. Reads with a fresh cache: to read many texts, make one reader with
 * `createContentWordReader`.
 */
export function contentWords(text: string): ContentWord[] {
  return createContentWordReader()(text);
}

/**
 * A key met by a reader: the last text (by number) that had it, and its entry in that text's
 * list. A text's words are gathered in the slots of their keys instead of in a map of its own.
 */
interface KeySlot {
  key: string;
  text: number;
  word: ContentWord | undefined;
}

/**
 * What one written word gives, whatever the text around it: its key's slot and its boost, or
 * `null` for a word that carries nothing. `mayBeName`: a capitalised plain word is a name unless
 * it opens a sentence, which only the text around it can tell.
 */
type WordReading = { slot: KeySlot; boost: number; mayBeName: boolean } | null;

/**
 * `contentWords` for many texts: a long input repeats a few thousand distinct words over and
 * over, so what each written word gives (lower-casing, the stop list, the identifier test and
 * the stemmer) is worked out once and remembered by the reader. Make one per summary, so the
 * cache is dropped with it.
 */
export function createContentWordReader(): (text: string) => ContentWord[] {
  const readings = new Map<string, WordReading>();
  const slots = new Map<string, KeySlot>();
  const slotOf = (key: string) => {
    let slot = slots.get(key);
    if (slot === undefined) {
      slot = { key, text: -1, word: undefined };
      slots.set(key, slot);
    }
    return slot;
  };
  const readWord = (word: string): WordReading => {
    let key = word.toLowerCase();
    if (key.includes('’')) key = key.replaceAll('’', "'");
    if (key.endsWith("'s")) key = key.slice(0, -2);
    if (UNINFORMATIVE_WORDS.has(key)) return null;
    if (DIGIT.test(key)) return { slot: slotOf(key), boost: NUMBER_BOOST, mayBeName: false };
    if (IDENTIFIER_MARK.test(word)) {
      return { slot: slotOf(key), boost: IDENTIFIER_BOOST, mayBeName: false };
    }
    if (key.length < 2) return null;
    // Stemmed as in search, so "paint", "painted" and "painting" count as one word.
    return { slot: slotOf(stemEnglish(key)), boost: 1, mayBeName: CAPITAL_FIRST.test(word) };
  };
  // Its own copy of the pattern, stepped with `exec`: `matchAll` would copy it for every text.
  const wordPattern = new RegExp(WORD);
  let texts = 0;
  return (text) => {
    const number = texts++;
    const words: ContentWord[] = [];
    // Each key once, in the order first met, with the highest boost it was met with.
    const add = (slot: KeySlot, boost: number) => {
      if (slot.text !== number) {
        slot.text = number;
        slot.word = { key: slot.key, boost };
        words.push(slot.word);
      } else if (boost > slot.word!.boost) {
        slot.word!.boost = boost;
      }
    };
    const hasCjk = HAS_CJK.test(text);
    for (const run of hasCjk ? text.matchAll(CJK_RUN) : []) {
      for (const pair of cjkNgrams(run[0], { min: 2, max: 2 })) add(slotOf(pair), CJK_PAIR_BOOST);
    }
    const latin = hasCjk ? text.replace(CJK_RUN, ' ') : text;
    wordPattern.lastIndex = 0;
    for (let match = wordPattern.exec(latin); match !== null; match = wordPattern.exec(latin)) {
      const word = match[0];
      let reading = readings.get(word);
      if (reading === undefined) {
        reading = readWord(word);
        readings.set(word, reading);
      }
      if (reading === null) continue;
      const name = reading.mayBeName && !startsSentence(latin, match.index);
      add(reading.slot, name ? NAME_BOOST : reading.boost);
    }
    return words;
  };
}

/**
 * How much a word tells, from how many of the `documents` contain it: a word found everywhere
 * (the speakers' names, the topic of the whole chat) tells little, a word found once tells a lot
 * (inverse document frequency).
 */
export function wordInformation(documentsWithWord: number, documents: number): number {
  return Math.log((documents + 1) / documentsWithWord);
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

import { ENGLISH_STOP_WORDS } from '../text/index.js';

/**
 * Words of four letters or more that name no topic: the English stop words, and the words of
 * instructions and chat roles that every working session repeats.
 */
const NOT_TOPICS: ReadonlySet<string> = new Set([
  ...ENGLISH_STOP_WORDS,
  ...'also always done like must need never want user assistant prefer please remember decided'.split(
    ' ',
  ),
]);

/** Up to three topic words: identifiers and longer words, in the order they appear. */
export function tagsOf(sentence: string): string[] {
  const tags: string[] = [];
  for (const match of sentence.matchAll(/[A-Za-z][\w.+#-]{3,}/g)) {
    const word = match[0].replace(/[.-]+$/, '').toLowerCase();
    if (word.length < 4 || NOT_TOPICS.has(word) || tags.includes(word)) continue;
    tags.push(word);
    if (tags.length === 3) break;
  }
  return tags;
}

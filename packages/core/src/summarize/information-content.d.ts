/** A word of a sentence that may carry information, with how much its form suggests it does. */
export interface ContentWord {
  /** Lowercase form that occurrences are counted by. */
  key: string;
  /** Numbers, names and identifiers are worth more than ordinary words of the same rarity. */
  boost: number;
}
/**
 * The words of `text` that can carry information, each once: function words and small talk are
 * left out; CJK text, written without spaces, is read as overlapping character pairs.
 */
export declare function contentWords(text: string): ContentWord[];
/**
 * How much each word tells, from how many of the `documents` (lists of word keys) contain it: a
 * word found everywhere (the speakers' names, the topic of the whole chat) tells little, a word
 * found once tells a lot (inverse document frequency).
 */
export declare function wordInformation(
  documents: ReadonlyArray<readonly ContentWord[]>,
): (key: string) => number;
//# sourceMappingURL=information-content.d.ts.map

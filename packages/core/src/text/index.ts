/**
 * Text analysis shared by every keyword path: the tokenizer (words, and CJK runs split into
 * n-grams or dictionary words), the English stop words, and the stemmer. BM25, the PostgreSQL
 * keyword search, the extractive summarizer and the de-duplication of memory cards all read words
 * through this module, so a word is the same term everywhere.
 */
export {
  analyzeText,
  createTextAnalyzer,
  type TextAnalyzer,
  type TextAnalyzerOptions,
} from './analyze-text.js';
export { IRREGULAR_FORMS } from './irregular-forms.js';
export { stemEnglish, stemEnglishPorter } from './stem-english.js';
export { ENGLISH_NEGATIONS, ENGLISH_STATEMENT_WORDS, ENGLISH_STOP_WORDS } from './stop-words.js';
export {
  CJK_CHARACTER,
  checkNgramSizes,
  cjkNgrams,
  type NgramSizes,
  normalizeText,
  type TextToken,
  tokenize,
} from './tokenize.js';

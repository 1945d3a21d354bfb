import type { TextAnalyzer } from '@ctxmem/core';
import { analyzeText } from '@ctxmem/core/retrieval';

/**
 * PostgreSQL limits a lexeme to 2 KB (in UTF-8) and keeps at most 256 positions per lexeme, each
 * at most 16,383; longer terms are dropped (no query can match them usefully) and later positions
 * are not written, so a long card never makes its insert fail.
 */
const MAX_LEXEME_BYTES = 2_046;
const MAX_POSITIONS = 256;
const MAX_POSITION = 16_383;

const encoder = new TextEncoder();

/** A lexeme as a quoted `tsvector` / `tsquery` literal: quotes and backslashes doubled. */
function quoteLexeme(term: string): string {
  return `'${term.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
}

const fitsInLexeme = (term: string) =>
  term.length * 3 <= MAX_LEXEME_BYTES || encoder.encode(term).length <= MAX_LEXEME_BYTES;

/**
 * The `tsvector` literal of a card's search text: core's analyzer splits it into terms (stemmed
 * English words without stop words, CJK n-grams), exactly as core's BM25 index does, so PostgreSQL
 * only matches terms and never analyzes text itself. Positions are kept, so `ts_rank` counts how
 * often a term occurs.
 */
export function keywordVector(text: string, analyzer: TextAnalyzer = analyzeText): string {
  const positions = new Map<string, number[]>();
  analyzer(text).forEach((term, index) => {
    if (!fitsInLexeme(term)) return;
    let list = positions.get(term);
    if (!list) {
      list = [];
      positions.set(term, list);
    }
    if (list.length < MAX_POSITIONS) list.push(Math.min(index + 1, MAX_POSITION));
  });
  return Array.from(positions, ([term, list]) => `${quoteLexeme(term)}:${list.join(',')}`).join(
    ' ',
  );
}

/**
 * The `tsquery` literal matching any term of `query` (an OR, as a keyword retriever needs), with
 * every term quoted so no word of the query is read as an operator; `undefined` when the query has
 * no terms (empty, or stop words only).
 */
export function keywordQuery(
  query: string,
  analyzer: TextAnalyzer = analyzeText,
): string | undefined {
  const terms = [...new Set(analyzer(query))].filter(fitsInLexeme);
  return terms.length === 0 ? undefined : terms.map(quoteLexeme).join(' | ');
}

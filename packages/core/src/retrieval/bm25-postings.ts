/**
 * BM25's postings: the in-memory posting of one term (typed arrays of slots and frequencies), and
 * the typed-array form a saved index stores, with the access `createBm25Index` registers so that
 * an index is saved and loaded without analysing any text (see `saved-search-index.ts`).
 */
import type { Bm25Index } from './bm25-index.js';

/**
 * An index's postings in a form that is saved and loaded as typed arrays (see
 * `search-index-file.ts`): documents are numbered by their position in an `order` of ids.
 */
export interface Bm25Postings {
  /** Number of terms of each document (its length for BM25), by document number. */
  lengths: Uint32Array;
  /** The terms, sorted; term `t`'s postings are entries `starts[t]` to `starts[t + 1]`. */
  terms: string[];
  starts: Uint32Array;
  /** Document number of each posting entry. */
  documents: Int32Array;
  /** Term frequency of each posting entry. */
  frequencies: Float32Array;
}

/**
 * Sorted terms looked up by binary search, without a string made for each term up front (a
 * saved index keeps its terms as bytes and decodes only the ones a search probes).
 */
export interface SortedTerms {
  readonly length: number;
  /** The term at `position` (in sorted order). */
  at(position: number): string;
  /** Position of `term`, or -1. */
  indexOf(term: string): number;
}

/** Postings to adopt: their terms as an array or looked up in place. */
export type AdoptablePostings = Omit<Bm25Postings, 'terms'> & {
  terms: readonly string[] | SortedTerms;
};

/** `terms` (sorted) as `SortedTerms`. */
export function sortedTerms(terms: readonly string[]): SortedTerms {
  return {
    length: terms.length,
    at: (position) => terms[position]!,
    indexOf: (term) => sortedIndexOf(terms, term),
  };
}

export interface Bm25PostingAccess {
  /** The postings of the documents `order` lists (every id must be in the index). */
  export(order: readonly string[]): Bm25Postings;
  /**
   * Takes `postings` of the documents `order` lists as the contents of an empty index, without
   * analysing any text. `textOf` gives the adopted text of document number `n` of `order` when it
   * is replaced or removed later (its terms are needed then and are not kept).
   */
  adopt(
    order: readonly string[],
    postings: AdoptablePostings,
    textOf: (number: number) => string,
  ): void;
}

const postingAccess = new WeakMap<Bm25Index, Bm25PostingAccess>();

/** Lets `bm25PostingAccess` reach the postings of `index` (called by `createBm25Index`). */
export function registerBm25PostingAccess(index: Bm25Index, access: Bm25PostingAccess): void {
  postingAccess.set(index, access);
}

/** Saving and loading the postings of an index of this module; undefined for any other index. */
export function bm25PostingAccess(index: Bm25Index): Bm25PostingAccess | undefined {
  return postingAccess.get(index);
}

/**
 * The postings of the documents `order` lists, numbered by their position in `order`, with terms
 * sorted so that a loaded index finds a term by binary search without a map of them all. Dead
 * slots and documents outside `order` are left out. Reads its inputs, never changes them.
 */
export function exportPostings(
  order: readonly string[],
  slotOf: ReadonlyMap<string, number>,
  {
    lengths,
    alive,
    postings,
  }: { lengths: Float64Array; alive: Uint8Array; postings: ReadonlyMap<string, Posting> },
): Bm25Postings {
  const numberOf = new Int32Array(alive.length).fill(-1);
  const lengthsOut = new Uint32Array(order.length);
  order.forEach((id, number) => {
    const slot = slotOf.get(id);
    if (slot === undefined) throw new Error(`no document ${id} in the index`);
    numberOf[slot] = number;
    lengthsOut[number] = lengths[slot]!;
  });
  const terms: string[] = [];
  const starts: number[] = [0];
  const documents: number[] = [];
  const frequencies: number[] = [];
  const sorted = [...postings.keys()].sort((left, right) =>
    left < right ? -1 : left > right ? 1 : 0,
  );
  for (const term of sorted) {
    const posting = postings.get(term)!;
    const before = documents.length;
    for (let position = 0; position < posting.length; position++) {
      const slot = posting.slots[position]!;
      if (alive[slot] !== 1 || !(numberOf[slot]! >= 0)) continue;
      documents.push(numberOf[slot]!);
      frequencies.push(posting.frequencies[position]!);
    }
    if (documents.length === before) continue;
    terms.push(term);
    starts.push(documents.length);
  }
  return {
    lengths: lengthsOut,
    terms,
    starts: Uint32Array.from(starts),
    documents: Int32Array.from(documents),
    frequencies: Float32Array.from(frequencies),
  };
}

/** The documents that contain one term: parallel arrays of slots and term frequencies. */
export interface Posting {
  slots: Int32Array;
  frequencies: Float32Array;
  /** Entries in use, dead slots included (they are skipped, and dropped by `compact`). */
  length: number;
  /** Live documents that contain the term. */
  documentFrequency: number;
}

export function newPosting(): Posting {
  return {
    slots: new Int32Array(4),
    frequencies: new Float32Array(4),
    length: 0,
    documentFrequency: 0,
  };
}

export function push(posting: Posting, slot: number, frequency: number): void {
  if (posting.length === posting.slots.length) {
    const slots = new Int32Array(posting.slots.length * 2);
    slots.set(posting.slots);
    const frequencies = new Float32Array(posting.slots.length * 2);
    frequencies.set(posting.frequencies);
    posting.slots = slots;
    posting.frequencies = frequencies;
  }
  posting.slots[posting.length] = slot;
  posting.frequencies[posting.length] = frequency;
  posting.length++;
  posting.documentFrequency++;
}

/** The first position in the sorted `values` whose value is not below `value`. */
export function lowerBound(values: readonly string[], value: string): number {
  let low = 0;
  let high = values.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (values[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Position of `value` in the sorted `values`, or -1. */
export function sortedIndexOf(values: readonly string[], value: string): number {
  const position = lowerBound(values, value);
  return values[position] === value ? position : -1;
}

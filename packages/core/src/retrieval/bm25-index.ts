import { InvalidArgumentError } from '../errors/index.js';
import { analyzeText, type TextAnalyzer } from '../text/index.js';
import { requireOptions } from '../validation/index.js';
import {
  type AdoptablePostings,
  exportPostings,
  newPosting,
  type Posting,
  push,
  registerBm25PostingAccess,
  type SortedTerms,
  sortedTerms,
} from './bm25-postings.js';
import { topHits } from './bm25-top-hits.js';

export { type Bm25Postings, bm25PostingAccess } from './bm25-postings.js';

export interface Bm25IndexOptions {
  /**
   * Term-frequency saturation: how much a second, third, ... occurrence of a word still adds.
   * @default 1.2
   */
  k1?: number;
  /**
   * Length normalisation in [0, 1]: 1 fully penalises long documents, 0 ignores length.
   * @default 0.75
   */
  b?: number;
  /**
   * Turns documents and queries into terms.
   * @default analyzeText
   */
  analyzer?: TextAnalyzer;
}

export interface Bm25Hit {
  id: string;
  score: number;
}

export interface Bm25SearchOptions {
  /** Only documents for which this returns true are scored. */
  filter?: (id: string) => boolean;
}

/** An incremental BM25 index: documents can be added, replaced and removed at any time. */
export interface Bm25Index {
  /** Adds a document, or replaces the text of the document with this id. */
  upsert(id: string, text: string): void;
  /** Removes a document; returns false when there was none. */
  remove(id: string): boolean;
  has(id: string): boolean;
  /** The `k` best-scoring documents that share at least one term with the query, best first. */
  search(query: string, k: number, options?: Bm25SearchOptions): Bm25Hit[];
  /**
   * The score of an average-length document that contains every query term once (terms no
   * document has count at their highest idf). Dividing a score by it gives roughly "how much of
   * the query this document covers": about 1 for a full match, 0 when nothing matches.
   */
  idealScore(query: string): number;
  /** Number of documents. */
  readonly size: number;
}

function checkOption(argument: string, value: number, min: number, max: number): void {
  if (!Number.isFinite(value) || value < min || value > max) {
    throw new InvalidArgumentError({
      message: `${argument} must be a number in [${min}, ${max}], got ${value}`,
      argument,
    });
  }
}

function countTerms(terms: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
  return counts;
}

/**
 * Creates an empty BM25 (Okapi) index with Lucene's always-positive idf
 * `ln(1 + (N - df + 0.5) / (df + 0.5))`. Postings are kept per term, so a search touches only the
 * documents that contain a query term, and an update touches only the terms of one document.
 *
 * Documents live in numbered slots and postings are typed arrays of slots and frequencies, so the
 * scoring loop is arithmetic over contiguous memory: a query word most documents contain stays
 * cheap at 100k cards. A removed document's slot is marked dead (skipped by searches) and its
 * posting entries are dropped in bulk, once dead slots are a third of all slots: removal costs
 * the document's own terms, amortised, never a scan of every posting.
 */
export function createBm25Index(options: Bm25IndexOptions = {}): Bm25Index {
  const { k1 = 1.2, b = 0.75, analyzer = analyzeText } = requireOptions(options, 'createBm25Index');
  checkOption('k1', k1, 0, 100);
  checkOption('b', b, 0, 1);
  const ids: Array<string | undefined> = [];
  let lengths = new Float64Array(16);
  // 1 for a slot holding a live document, 0 for a free or dead one.
  let alive = new Uint8Array(16);
  // id → slot, built on first use after an adoption (a search that changes nothing never needs it).
  const slotMap = new Map<string, number>();
  let slotMapBuilt = true;
  let documentCount = 0;
  function slotOf(): Map<string, number> {
    if (!slotMapBuilt) {
      slotMapBuilt = true;
      ids.forEach((id, slot) => {
        if (id !== undefined && alive[slot] === 1) slotMap.set(id, slot);
      });
    }
    return slotMap;
  }
  const postings = new Map<string, Posting>();
  // slot → its distinct terms, to keep document frequencies right on removal
  const documentTerms: Array<string[] | undefined> = [];
  let deadSlots = 0;
  let totalLength = 0;
  // Reused across searches: allocating (and page-faulting) arrays the size of the index on every
  // search cost more than the scoring itself at 100k documents.
  let scratch = new Float64Array(0);
  let touchedScratch = new Int32Array(0);
  let selectionScratch = new Float64Array(0);
  let thresholdScratch = new Float64Array(0);

  function grow(slot: number): void {
    if (slot < lengths.length) return;
    const capacity = Math.max(slot + 1, lengths.length * 2);
    const grownLengths = new Float64Array(capacity);
    grownLengths.set(lengths);
    lengths = grownLengths;
    const grownAlive = new Uint8Array(capacity);
    grownAlive.set(alive);
    alive = grownAlive;
  }

  /** Renumbers the live documents into consecutive slots and rebuilds the postings without dead ones. */
  function compact(): void {
    adoptAllPostings();
    const renumbered = new Int32Array(ids.length).fill(-1);
    let next = 0;
    for (let slot = 0; slot < ids.length; slot++) {
      if (alive[slot] !== 1) continue;
      renumbered[slot] = next;
      ids[next] = ids[slot];
      lengths[next] = lengths[slot]!;
      alive[next] = 1;
      documentTerms[next] = documentTerms[slot];
      if (next < adoptedNumbers.length) {
        adoptedNumbers[next] = slot < adoptedNumbers.length ? adoptedNumbers[slot]! : -1;
      }
      slotOf().set(ids[next]!, next);
      next++;
    }
    for (let slot = next; slot < ids.length; slot++) {
      alive[slot] = 0;
      lengths[slot] = 0;
    }
    ids.length = next;
    documentTerms.length = next;
    for (const [term, posting] of postings) {
      let kept = 0;
      for (let position = 0; position < posting.length; position++) {
        const slot = renumbered[posting.slots[position]!]!;
        if (slot < 0) continue;
        posting.slots[kept] = slot;
        posting.frequencies[kept] = posting.frequencies[position]!;
        kept++;
      }
      posting.length = kept;
      if (kept === 0) postings.delete(term);
    }
    deadSlots = 0;
  }

  // Adopted documents keep no term list: it is analysed again from their text when needed (a
  // removal). Slot → the document's number in the adopted order (-1 for documents added since).
  let adoptedTextOf: ((number: number) => string) | undefined;
  let adoptedNumbers = new Int32Array(0);

  function termsOf(slot: number): string[] {
    const terms = documentTerms[slot];
    if (terms) return terms;
    return [...new Set(analyzer(adoptedTextOf!(adoptedNumbers[slot]!)))];
  }

  // Adopted postings become objects only when a term is used: making 100,000 of them up front
  // would cost more than the rest of loading.
  let adoptedPostings: (Omit<AdoptablePostings, 'terms'> & { terms: SortedTerms }) | undefined;

  function postingOf(term: string): Posting | undefined {
    const posting = postings.get(term);
    if (posting || !adoptedPostings) return posting;
    const number = adoptedPostings.terms.indexOf(term);
    if (number < 0) return undefined;
    const { starts, documents, frequencies } = adoptedPostings;
    const start = starts[number]!;
    const end = starts[number + 1]!;
    // Views into the loaded arrays: a posting that grows later gets arrays of its own.
    const adopted = {
      slots: documents.subarray(start, end),
      frequencies: frequencies.subarray(start, end),
      length: end - start,
      documentFrequency: end - start,
    };
    postings.set(term, adopted);
    return adopted;
  }

  /** Every posting as an object (before a pass over all of them). */
  function adoptAllPostings(): void {
    if (!adoptedPostings) return;
    const { terms } = adoptedPostings;
    for (let number = 0; number < terms.length; number++) postingOf(terms.at(number));
    adoptedPostings = undefined;
  }

  function remove(id: string): boolean {
    const slot = slotOf().get(id);
    if (slot === undefined) return false;
    for (const term of termsOf(slot)) {
      const posting = postingOf(term)!;
      posting.documentFrequency--;
    }
    totalLength -= lengths[slot]!;
    alive[slot] = 0;
    documentTerms[slot] = undefined;
    slotOf().delete(id);
    documentCount--;
    deadSlots++;
    if (deadSlots > 64 && deadSlots * 3 > ids.length) compact();
    return true;
  }

  function upsert(id: string, text: string): void {
    const analyzed = analyzer(text);
    const terms = countTerms(analyzed);
    insert(id, analyzed.length, [...terms.keys()], [...terms.values()]);
  }

  function insert(id: string, length: number, terms: string[], counts: number[]): void {
    remove(id);
    const slot = ids.length;
    grow(slot);
    ids.push(id);
    lengths[slot] = length;
    alive[slot] = 1;
    documentTerms[slot] = terms;
    slotOf().set(id, slot);
    documentCount++;
    for (let position = 0; position < terms.length; position++) {
      const term = terms[position]!;
      let posting = postingOf(term);
      if (!posting) {
        posting = newPosting();
        postings.set(term, posting);
      }
      push(posting, slot, counts[position]!);
    }
    totalLength += length;
  }

  function search(query: string, k: number, { filter }: Bm25SearchOptions = {}): Bm25Hit[] {
    if (!Number.isInteger(k) || k < 0) {
      throw new InvalidArgumentError({
        message: `k must be a non-negative integer, got ${k}`,
        argument: 'k',
      });
    }
    const count = documentCount;
    if (k === 0 || count === 0) return [];
    const averageLength = totalLength / count || 1;
    if (scratch.length < ids.length) {
      const capacity = Math.max(ids.length, 2 * scratch.length);
      scratch = new Float64Array(capacity);
      touchedScratch = new Int32Array(capacity);
      selectionScratch = new Float64Array(capacity);
      thresholdScratch = new Float64Array(capacity);
    }
    const scores = scratch;
    const touched = touchedScratch;
    let touchedCount = 0;
    const lengthWeight = (k1 * b) / averageLength;
    const constantWeight = k1 * (1 - b);
    // A repeated query term counts once: questions rarely repeat words on purpose.
    for (const term of new Set(analyzer(query))) {
      const posting = postingOf(term);
      if (!posting || posting.documentFrequency === 0) continue;
      const idf = inverseDocumentFrequency(posting.documentFrequency);
      const { slots, frequencies } = posting;
      const idfScale = idf * (k1 + 1);
      for (let position = 0; position < posting.length; position++) {
        const slot = slots[position]!;
        if (alive[slot] !== 1) continue;
        const frequency = frequencies[position]!;
        const norm = constantWeight + lengthWeight * lengths[slot]!;
        if (scores[slot] === 0) touched[touchedCount++] = slot;
        // Never exactly 0 once touched, so a slot is listed once.
        scores[slot]! += (idfScale * frequency) / (frequency + norm) || Number.MIN_VALUE;
      }
    }
    // Matches that pass the filter are packed to the front of `touched`, their scores alongside.
    const matchScores = selectionScratch;
    let matchCount = 0;
    for (let position = 0; position < touchedCount; position++) {
      const slot = touched[position]!;
      const score = scores[slot]!;
      scores[slot] = 0;
      if (filter && !filter(ids[slot]!)) continue;
      touched[matchCount] = slot;
      matchScores[matchCount] = score;
      matchCount++;
    }
    return topHits(touched, matchScores, matchCount, k, ids, thresholdScratch);
  }

  function inverseDocumentFrequency(documentFrequency: number): number {
    const count = documentCount;
    return Math.log(1 + (count - documentFrequency + 0.5) / (documentFrequency + 0.5));
  }

  function idealScore(query: string): number {
    let total = 0;
    for (const term of new Set(analyzer(query))) {
      total += inverseDocumentFrequency(postingOf(term)?.documentFrequency ?? 0);
    }
    return total;
  }

  const index: Bm25Index = {
    upsert,
    idealScore,
    remove,
    has: (id) => slotOf().has(id),
    search,
    get size() {
      return documentCount;
    },
  };
  registerBm25PostingAccess(index, {
    export(order) {
      adoptAllPostings();
      return exportPostings(order, slotOf(), { lengths, alive, postings });
    },
    adopt(order, saved, textOf) {
      if (ids.length > 0) throw new Error('postings are adopted by an empty index only');
      adoptedTextOf = textOf;
      const count = order.length;
      adoptedNumbers = new Int32Array(count);
      grow(count);
      slotMapBuilt = false;
      documentCount = count;
      // Plain loops: at 100,000 documents a callback per document showed in a search's start-up.
      for (let slot = 0; slot < count; slot++) {
        adoptedNumbers[slot] = slot;
        ids.push(order[slot]);
        lengths[slot] = saved.lengths[slot]!;
        totalLength += saved.lengths[slot]!;
      }
      alive.fill(1, 0, count);
      documentTerms.length = count;
      const { terms } = saved;
      adoptedPostings = {
        ...saved,
        terms: Array.isArray(terms) ? sortedTerms(terms) : (terms as SortedTerms),
      };
    },
  });
  return index;
}

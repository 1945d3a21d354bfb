import { InvalidArgumentError } from '../errors/index.js';
import { analyzeText, type TextAnalyzer } from '../text/index.js';

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

/** One document as the index holds it: what a saved index stores instead of the text. */
export interface Bm25Document {
  length: number;
  terms: string[];
  counts: number[];
}

interface Bm25Documents {
  get(id: string): Bm25Document | undefined;
  /** Adds or replaces a document analysed earlier (by the same analyzer). */
  put(id: string, document: Bm25Document): void;
}

const documentAccess = new WeakMap<Bm25Index, Bm25Documents>();

/**
 * The analysed documents of an index of this module, for saving and loading an index without
 * analysing every text again (see `search-index-file.ts`). Undefined for any other index.
 */
export function bm25Documents(index: Bm25Index): Bm25Documents | undefined {
  return documentAccess.get(index);
}

/** The documents that contain one term: parallel arrays of slots and term frequencies. */
interface Posting {
  slots: Int32Array;
  frequencies: Float32Array;
  /** Entries in use, dead slots included (they are skipped, and dropped by `compact`). */
  length: number;
  /** Live documents that contain the term. */
  documentFrequency: number;
}

function newPosting(): Posting {
  return {
    slots: new Int32Array(4),
    frequencies: new Float32Array(4),
    length: 0,
    documentFrequency: 0,
  };
}

function push(posting: Posting, slot: number, frequency: number): void {
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
export function createBm25Index({
  k1 = 1.2,
  b = 0.75,
  analyzer = analyzeText,
}: Bm25IndexOptions = {}): Bm25Index {
  checkOption('k1', k1, 0, 100);
  checkOption('b', b, 0, 1);
  const ids: Array<string | undefined> = [];
  let lengths = new Float64Array(16);
  // 1 for a slot holding a live document, 0 for a free or dead one.
  let alive = new Uint8Array(16);
  const slotOf = new Map<string, number>();
  const postings = new Map<string, Posting>();
  // slot → its distinct terms and their counts, to keep document frequencies right on removal
  const documentTerms: Array<string[] | undefined> = [];
  const documentCounts: Array<number[] | undefined> = [];
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
    const renumbered = new Int32Array(ids.length).fill(-1);
    let next = 0;
    for (let slot = 0; slot < ids.length; slot++) {
      if (alive[slot] !== 1) continue;
      renumbered[slot] = next;
      ids[next] = ids[slot];
      lengths[next] = lengths[slot]!;
      alive[next] = 1;
      documentTerms[next] = documentTerms[slot];
      documentCounts[next] = documentCounts[slot];
      slotOf.set(ids[next]!, next);
      next++;
    }
    for (let slot = next; slot < ids.length; slot++) {
      alive[slot] = 0;
      lengths[slot] = 0;
    }
    ids.length = next;
    documentTerms.length = next;
    documentCounts.length = next;
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

  function remove(id: string): boolean {
    const slot = slotOf.get(id);
    if (slot === undefined) return false;
    for (const term of documentTerms[slot]!) {
      const posting = postings.get(term)!;
      posting.documentFrequency--;
    }
    totalLength -= lengths[slot]!;
    alive[slot] = 0;
    documentTerms[slot] = undefined;
    documentCounts[slot] = undefined;
    slotOf.delete(id);
    deadSlots++;
    if (deadSlots > 64 && deadSlots * 3 > ids.length) compact();
    return true;
  }

  function upsert(id: string, text: string): void {
    const analyzed = analyzer(text);
    const terms = countTerms(analyzed);
    insert(id, { length: analyzed.length, terms: [...terms.keys()], counts: [...terms.values()] });
  }

  function insert(id: string, { length, terms, counts }: Bm25Document): void {
    remove(id);
    const slot = ids.length;
    grow(slot);
    ids.push(id);
    lengths[slot] = length;
    alive[slot] = 1;
    documentTerms[slot] = terms;
    documentCounts[slot] = counts;
    slotOf.set(id, slot);
    for (let position = 0; position < terms.length; position++) {
      const term = terms[position]!;
      let posting = postings.get(term);
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
    const count = slotOf.size;
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
      const posting = postings.get(term);
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
    const count = slotOf.size;
    return Math.log(1 + (count - documentFrequency + 0.5) / (documentFrequency + 0.5));
  }

  function idealScore(query: string): number {
    let total = 0;
    for (const term of new Set(analyzer(query))) {
      total += inverseDocumentFrequency(postings.get(term)?.documentFrequency ?? 0);
    }
    return total;
  }

  const index: Bm25Index = {
    upsert,
    idealScore,
    remove,
    has: (id) => slotOf.has(id),
    search,
    get size() {
      return slotOf.size;
    },
  };
  documentAccess.set(index, {
    get(id) {
      const slot = slotOf.get(id);
      if (slot === undefined) return undefined;
      return { length: lengths[slot]!, terms: documentTerms[slot]!, counts: documentCounts[slot]! };
    },
    put: insert,
  });
  return index;
}

/** Higher scores first; ties are broken by id so that results never depend on insertion order. */
function compareHits(left: Bm25Hit, right: Bm25Hit): number {
  return right.score - left.score || (left.id < right.id ? -1 : left.id > right.id ? 1 : 0);
}

/** The `k`-th largest of `values` (1-based), by selection in place: linear on average. */
function kthLargest(values: Float64Array, k: number): number {
  let low = 0;
  let high = values.length - 1;
  const target = k - 1;
  while (low < high) {
    const pivot = values[(low + high) >>> 1]!;
    let left = low;
    let right = high;
    while (left <= right) {
      while (values[left]! > pivot) left++;
      while (values[right]! < pivot) right--;
      if (left <= right) {
        const swap = values[left]!;
        values[left] = values[right]!;
        values[right] = swap;
        left++;
        right--;
      }
    }
    if (target <= right) high = right;
    else if (target >= left) low = left;
    else break;
  }
  return values[target]!;
}

/**
 * The best `k` of the matched slots, best first. Selects the k-th best score in linear time and
 * sorts only what ranks at or above it, so a query word most documents contain (a speaker's name)
 * costs a pass over its matches, not a sort of them; equal scores, common with short cards, are
 * ordered by id.
 */
function topHits(
  slots: Int32Array,
  slotScores: Float64Array,
  count: number,
  k: number,
  ids: ReadonlyArray<string | undefined>,
  scratch: Float64Array,
): Bm25Hit[] {
  if (count <= k) {
    const all: Bm25Hit[] = [];
    for (let position = 0; position < count; position++) {
      all.push({ id: ids[slots[position]!]!, score: slotScores[position]! });
    }
    return all.sort(compareHits);
  }
  // Selection reorders the values it is given: select on a copy.
  scratch.set(slotScores.subarray(0, count));
  const threshold = kthLargest(scratch.subarray(0, count), k);
  const above: Bm25Hit[] = [];
  // Of the matches that score exactly the threshold, the smallest ids: with short cards
  // thousands can tie, so they are kept in a small sorted list instead of sorted whole.
  const tied: string[] = [];
  let room = k;
  for (let position = 0; position < count; position++) {
    if (slotScores[position]! > threshold) room--;
  }
  for (let position = 0; position < count; position++) {
    const score = slotScores[position]!;
    if (score > threshold) above.push({ id: ids[slots[position]!]!, score });
    else if (score === threshold) {
      const id = ids[slots[position]!]!;
      if (tied.length === room && id >= tied[room - 1]!) continue;
      let low = 0;
      let high = tied.length;
      while (low < high) {
        const middle = (low + high) >>> 1;
        if (tied[middle]! < id) low = middle + 1;
        else high = middle;
      }
      tied.splice(low, 0, id);
      if (tied.length > room) tied.pop();
    }
  }
  above.sort(compareHits);
  for (const id of tied) above.push({ id, score: threshold });
  return above;
}

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

/**
 * Creates an empty BM25 (Okapi) index with Lucene's always-positive idf
 * `ln(1 + (N - df + 0.5) / (df + 0.5))`. Postings are kept per term, so a search touches only the
 * documents that contain a query term, and an update touches only the terms of one document.
 */
export function createBm25Index({
  k1 = 1.2,
  b = 0.75,
  analyzer = analyzeText,
}: Bm25IndexOptions = {}): Bm25Index {
  checkOption('k1', k1, 0, 100);
  checkOption('b', b, 0, 1);
  // Documents live in numbered slots, so the scoring loop adds into a typed array instead of
  // looking strings up in maps: a query word most documents contain stays cheap at 100k cards.
  const ids: string[] = [];
  const lengths: number[] = [];
  const slotOf = new Map<string, number>();
  const freeSlots: number[] = [];
  // term → (slot → term frequency)
  const postings = new Map<string, Map<number, number>>();
  // slot → (term → frequency), to undo a document's postings on removal
  const documentTerms: Array<Map<string, number> | undefined> = [];
  let totalLength = 0;
  let scratch = new Float64Array(0);

  function remove(id: string): boolean {
    const slot = slotOf.get(id);
    if (slot === undefined) return false;
    for (const term of documentTerms[slot]!.keys()) {
      const posting = postings.get(term);
      posting?.delete(slot);
      if (posting?.size === 0) postings.delete(term);
    }
    totalLength -= lengths[slot]!;
    documentTerms[slot] = undefined;
    slotOf.delete(id);
    freeSlots.push(slot);
    return true;
  }

  function upsert(id: string, text: string): void {
    remove(id);
    const analyzed = analyzer(text);
    const terms = countTerms(analyzed);
    const slot = freeSlots.pop() ?? ids.length;
    ids[slot] = id;
    lengths[slot] = analyzed.length;
    documentTerms[slot] = terms;
    slotOf.set(id, slot);
    for (const [term, frequency] of terms) {
      let posting = postings.get(term);
      if (!posting) {
        posting = new Map();
        postings.set(term, posting);
      }
      posting.set(slot, frequency);
    }
    totalLength += analyzed.length;
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
    if (scratch.length < ids.length)
      scratch = new Float64Array(Math.max(ids.length, 2 * scratch.length));
    const scores = scratch;
    const touched: number[] = [];
    // A repeated query term counts once: questions rarely repeat words on purpose.
    for (const term of new Set(analyzer(query))) {
      const posting = postings.get(term);
      if (!posting) continue;
      const idf = inverseDocumentFrequency(posting.size);
      for (const [slot, frequency] of posting) {
        const norm = k1 * (1 - b + (b * lengths[slot]!) / averageLength);
        if (scores[slot] === 0) touched.push(slot);
        // Never exactly 0 once touched, so a slot is listed once.
        scores[slot]! += (idf * frequency * (k1 + 1)) / (frequency + norm) || Number.MIN_VALUE;
      }
    }
    // Keeps only the best k while scanning, so a query word half the documents contain (a
    // speaker's name) does not cost a sort of every match.
    const best: Bm25Hit[] = [];
    for (const slot of touched) {
      const score = scores[slot]!;
      scores[slot] = 0;
      const id = ids[slot]!;
      const worst = best[best.length - 1];
      if (best.length === k && worst && !ranksBefore(score, id, worst)) continue;
      if (filter && !filter(id)) continue;
      let low = 0;
      let high = best.length;
      while (low < high) {
        const middle = (low + high) >>> 1;
        if (ranksBefore(score, id, best[middle]!)) high = middle;
        else low = middle + 1;
      }
      best.splice(low, 0, { id, score });
      if (best.length > k) best.pop();
    }
    return best;
  }

  function inverseDocumentFrequency(documentFrequency: number): number {
    const count = slotOf.size;
    return Math.log(1 + (count - documentFrequency + 0.5) / (documentFrequency + 0.5));
  }

  function idealScore(query: string): number {
    let total = 0;
    for (const term of new Set(analyzer(query))) {
      total += inverseDocumentFrequency(postings.get(term)?.size ?? 0);
    }
    return total;
  }

  return {
    upsert,
    idealScore,
    remove,
    has: (id) => slotOf.has(id),
    search,
    get size() {
      return slotOf.size;
    },
  };
}

/** Higher scores first; ties are broken by id so that results never depend on insertion order. */
function ranksBefore(score: number, id: string, other: Bm25Hit): boolean {
  return score > other.score || (score === other.score && id < other.id);
}

/** The best `k` of BM25's matches, selected in linear time (see `topHits`). */
import type { Bm25Hit } from './bm25-index.js';
import { lowerBound } from './bm25-postings.js';

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
export function topHits(
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
      tied.splice(lowerBound(tied, id), 0, id);
      if (tied.length > room) tied.pop();
    }
  }
  above.sort(compareHits);
  for (const id of tied) above.push({ id, score: threshold });
  return above;
}

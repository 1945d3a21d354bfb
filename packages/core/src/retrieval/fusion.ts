import { InvalidArgumentError } from '../errors/index.js';
import { requireOptions } from '../validation/index.js';

export interface RankedList {
  /** Ids, best first. */
  ids: readonly string[];
  /** @default 1 */
  weight?: number;
}

function checkWeight(weight: number): void {
  if (!Number.isFinite(weight) || weight < 0) {
    throw new InvalidArgumentError({
      message: `fusion weights must be finite numbers >= 0, got ${weight}`,
      argument: 'weights',
    });
  }
}

/**
 * Reciprocal-rank fusion (Cormack et al. 2009): each list adds `weight / (k + rank)` (rank from
 * 1). Only ranks matter, so lists with incomparable scores (BM25 and cosine) fuse without
 * calibration. Scores are divided by the best possible total, so an id ranked first in every
 * list scores 1.
 */
export function reciprocalRankFusion(
  lists: readonly RankedList[],
  options: { /** @default 60 */ k?: number } = {},
): Map<string, number> {
  const { k = 60 } = requireOptions(options, 'reciprocalRankFusion');
  if (!Number.isFinite(k) || k < 0) {
    throw new InvalidArgumentError({ message: `rrf k must be >= 0, got ${k}`, argument: 'rrfK' });
  }
  const scores = new Map<string, number>();
  let best = 0;
  for (const { ids, weight = 1 } of lists) {
    checkWeight(weight);
    if (ids.length > 0) best += weight / (k + 1);
    ids.forEach((id, index) => {
      scores.set(id, (scores.get(id) ?? 0) + weight / (k + index + 1));
    });
  }
  if (best > 0) for (const [id, score] of scores) scores.set(id, score / best);
  return scores;
}

export interface ScoredList {
  /** Id → score, already normalised to [0, 1]. */
  scores: ReadonlyMap<string, number>;
  /** @default 1 */
  weight?: number;
}

/**
 * Convex combination of normalised scores: `Σ weight × score / Σ weight`. An id missing from a
 * list scores 0 there. Uses the score values, so it needs scores on a comparable scale.
 */
export function weightedFusion(lists: readonly ScoredList[]): Map<string, number> {
  let totalWeight = 0;
  for (const { weight = 1 } of lists) {
    checkWeight(weight);
    totalWeight += weight;
  }
  const fused = new Map<string, number>();
  if (totalWeight === 0) return fused;
  for (const { scores, weight = 1 } of lists) {
    for (const [id, score] of scores) {
      fused.set(id, (fused.get(id) ?? 0) + (weight * score) / totalWeight);
    }
  }
  return fused;
}

/**
 * How cosines are put on the scale of the normalised BM25 scores before weighted fusion: `none`
 * clips them at 0; `candidate-floor` rescales them to `(cosine − floor) / (1 − floor)`, where the
 * floor is the lowest cosine among the candidates. A sentence model gives unrelated texts a
 * cosine of 0.2–0.4, so raw cosines add nearly the same amount to every candidate and blur the
 * ranking; measured from the floor, an unrelated card scores about 0 and a perfect match 1.
 */
export type CosineCalibration = 'none' | 'candidate-floor';

/** The cosines of the candidates, calibrated (see `CosineCalibration`); never mutates its input. */
export function calibrateCosines(
  cosines: ReadonlyMap<string, number>,
  calibration: CosineCalibration,
): Map<string, number> {
  if (calibration === 'none') {
    return new Map([...cosines].map(([id, score]) => [id, Math.max(0, score)]));
  }
  // A single candidate has no floor to measure from: it keeps its cosine.
  let floor = 0;
  if (cosines.size >= 2) {
    floor = Number.POSITIVE_INFINITY;
    for (const score of cosines.values()) floor = Math.min(floor, score);
  }
  floor = Math.max(0, floor);
  return new Map(
    [...cosines].map(([id, score]) => [
      id,
      floor >= 1 ? 0 : Math.max(0, (score - floor) / (1 - floor)),
    ]),
  );
}

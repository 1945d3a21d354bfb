import { InvalidArgumentError } from '../errors/index.js';
import { requireOptions } from '../validation/index.js';

export interface MaximalMarginalRelevanceOptions<Item> {
  /** How many items to pick. */
  k: number;
  /**
   * Trade-off in [0, 1]: 1 ranks by relevance only, 0 by novelty only.
   * @default 0.7
   */
  lambda?: number;
  /** Relevance of an item; any scale (normalised by the best item). */
  relevance: (item: Item) => number;
  /** Similarity of two items in [0, 1] (cosine, Jaccard, ...). */
  similarity: (left: Item, right: Item) => number;
}

/**
 * Maximal marginal relevance (Carbonell & Goldstein 1998): picks, one at a time, the item with the
 * best `lambda × relevance − (1 − lambda) × (highest similarity to an item already picked)`, so
 * five near-identical memories do not crowd out a different, relevant one. Returns a new array;
 * ties keep the input order.
 */
export function maximalMarginalRelevance<Item>(
  items: readonly Item[],
  options: MaximalMarginalRelevanceOptions<Item>,
): Item[] {
  const {
    k,
    lambda = 0.7,
    relevance,
    similarity,
  } = requireOptions(options, 'maximalMarginalRelevance', {
    k: { expected: 'how many items to pick, a number', type: 'number' },
    relevance: { expected: 'a function scoring an item', type: 'function' },
    similarity: { expected: 'a function comparing two items', type: 'function' },
  });
  if (!Number.isFinite(lambda) || lambda < 0 || lambda > 1) {
    throw new InvalidArgumentError({
      message: `mmr lambda must be in [0, 1], got ${lambda}`,
      argument: 'lambda',
    });
  }
  const relevances = items.map(relevance);
  const best = Math.max(0, ...relevances) || 1;
  const remaining = items.map((item, index) => ({
    item,
    relevance: (relevances[index] ?? 0) / best,
    // Highest similarity to anything picked so far, updated as items are picked.
    redundancy: 0,
  }));
  const picked: Item[] = [];
  while (picked.length < k && remaining.length > 0) {
    let bestIndex = 0;
    let bestValue = Number.NEGATIVE_INFINITY;
    remaining.forEach((candidate, index) => {
      const value = lambda * candidate.relevance - (1 - lambda) * candidate.redundancy;
      if (value > bestValue) {
        bestValue = value;
        bestIndex = index;
      }
    });
    const [chosen] = remaining.splice(bestIndex, 1);
    if (!chosen) break;
    picked.push(chosen.item);
    for (const candidate of remaining) {
      candidate.redundancy = Math.max(
        candidate.redundancy,
        similarity(candidate.item, chosen.item),
      );
    }
  }
  return picked;
}

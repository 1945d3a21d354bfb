import type { MemoryIndex, MemoryIndexHit, MemoryIndexItem } from '../contracts/index.js';
import { InvalidArgumentError } from '../errors/index.js';

export interface BruteForceIndexOptions {
  /** Length of every vector; upserts and queries with another length are rejected. */
  dimensions: number;
}

interface StoredItem {
  /** A normalised private copy, so later changes to the caller's array cannot alter the index. */
  vector: Float32Array;
  scopeKey: string;
}

/**
 * Checks a vector and returns an L2-normalised copy. Embedders already normalise, but a vector
 * from elsewhere must not skew the cosine scores; a zero vector stays zero (it scores 0 against
 * everything) rather than becoming NaN.
 */
function normalisedCopy(vector: unknown, dimensions: number, argument: string): Float32Array {
  if (!(vector instanceof Float32Array)) {
    throw new InvalidArgumentError({ message: `${argument} must be a Float32Array`, argument });
  }
  if (vector.length !== dimensions) {
    throw new InvalidArgumentError({
      message: `${argument} has ${vector.length} dimensions, the index has ${dimensions}`,
      argument,
    });
  }
  let squaredLength = 0;
  for (const value of vector) {
    if (!Number.isFinite(value)) {
      throw new InvalidArgumentError({
        message: `${argument} contains a non-finite value (${value})`,
        argument,
      });
    }
    squaredLength += value * value;
  }
  const copy = new Float32Array(vector);
  if (squaredLength > 0) {
    const scale = 1 / Math.sqrt(squaredLength);
    for (let position = 0; position < copy.length; position++) copy[position]! *= scale;
  }
  return copy;
}

function dotProduct(left: Float32Array, right: Float32Array): number {
  // Four running sums: independent additions pipeline far better than one serial chain.
  let sum0 = 0;
  let sum1 = 0;
  let sum2 = 0;
  let sum3 = 0;
  const length = left.length;
  const end = length - (length % 4);
  let position = 0;
  for (; position < end; position += 4) {
    sum0 += left[position]! * right[position]!;
    sum1 += left[position + 1]! * right[position + 1]!;
    sum2 += left[position + 2]! * right[position + 2]!;
    sum3 += left[position + 3]! * right[position + 3]!;
  }
  for (; position < length; position++) sum0 += left[position]! * right[position]!;
  return sum0 + sum1 + sum2 + sum3;
}

/** Higher score first; equal scores by id, so results never depend on insertion order. */
function compareHits(left: MemoryIndexHit, right: MemoryIndexHit): number {
  if (left.score !== right.score) return right.score - left.score;
  return left.id < right.id ? -1 : left.id > right.id ? 1 : 0;
}

/**
 * Validates `k` and clamps it to `available`. Fractions are rounded down and `Infinity` means
 * "all", so only NaN and negative values are errors.
 */
function clampK(k: unknown, available: number): number {
  if (typeof k !== 'number' || Number.isNaN(k) || k < 0) {
    throw new InvalidArgumentError({
      message: `k must be a number >= 0, got ${String(k)}`,
      argument: 'k',
    });
  }
  return Math.min(Math.floor(k), available);
}

function checkScopeKey(scopeKey: unknown, argument: string): asserts scopeKey is string {
  if (typeof scopeKey !== 'string') {
    throw new InvalidArgumentError({ message: `${argument} must be a string`, argument });
  }
}

function checkArray(value: unknown, argument: string): void {
  if (!Array.isArray(value)) {
    throw new InvalidArgumentError({ message: `${argument} must be an array`, argument });
  }
}

function checkId(id: unknown, argument: string): asserts id is string {
  if (typeof id !== 'string' || id.length === 0) {
    throw new InvalidArgumentError({ message: `${argument} must be a non-empty string`, argument });
  }
}

/**
 * An exact in-memory `MemoryIndex`: every query scores every item of the asked scope (cosine, via
 * the dot product of normalised vectors). Linear in the scope's size — fine up to tens of
 * thousands of cards, and the reference that approximate indexes are tested against.
 *
 * @example
 * const index = createBruteForceIndex({ dimensions: 384 });
 * await index.upsert([{ id: 'card-1', vector, scopeKey: 'user:42' }]);
 * const hits = await index.query(queryVector, { k: 5, scopeKey: 'user:42' });
 */
export function createBruteForceIndex({ dimensions }: BruteForceIndexOptions): MemoryIndex {
  if (!Number.isInteger(dimensions) || dimensions < 1) {
    throw new InvalidArgumentError({
      message: `dimensions must be a positive integer, got ${dimensions}`,
      argument: 'dimensions',
    });
  }
  const items = new Map<string, StoredItem>();
  // Per-scope vectors, so a query touches only its own scope's items.
  const scopes = new Map<string, Map<string, Float32Array>>();

  function detach(id: string): void {
    const existing = items.get(id);
    if (!existing) return;
    items.delete(id);
    const members = scopes.get(existing.scopeKey);
    members?.delete(id);
    if (members?.size === 0) scopes.delete(existing.scopeKey);
  }

  return {
    dimensions,

    async upsert(batch) {
      checkArray(batch, 'items');
      // Validate the whole batch first: a bad item must not leave half of the batch applied.
      const prepared: Array<[string, StoredItem]> = batch.map((item: MemoryIndexItem, position) => {
        checkId(item?.id, `items[${position}].id`);
        checkScopeKey(item.scopeKey, `items[${position}].scopeKey`);
        const vector = normalisedCopy(item.vector, dimensions, `items[${position}].vector`);
        return [item.id, { vector, scopeKey: item.scopeKey }];
      });
      for (const [id, stored] of prepared) {
        detach(id);
        items.set(id, stored);
        let members = scopes.get(stored.scopeKey);
        if (!members) {
          members = new Map();
          scopes.set(stored.scopeKey, members);
        }
        members.set(id, stored.vector);
      }
    },

    async remove(ids) {
      checkArray(ids, 'ids');
      ids.forEach((id, position) => {
        checkId(id, `ids[${position}]`);
      });
      for (const id of ids) detach(id);
    },

    async query(vector, options) {
      const { k, scopeKey } = options ?? {};
      checkScopeKey(scopeKey, 'scopeKey');
      const query = normalisedCopy(vector, dimensions, 'vector');
      const members = scopes.get(scopeKey);
      const limit = clampK(k, members?.size ?? 0);
      if (!members || limit === 0) return [];
      // Keep only the best `limit` hits in a sorted array: k is small, scopes can be large. A hit
      // object is only allocated for a score that enters it.
      const best: MemoryIndexHit[] = [];
      for (const [id, stored] of members) {
        const score = Math.max(-1, Math.min(1, dotProduct(query, stored)));
        if (best.length === limit) {
          const worst = best[limit - 1]!;
          if (score < worst.score || (score === worst.score && id > worst.id)) continue;
        }
        const hit = { id, score };
        let position = best.length;
        while (position > 0 && compareHits(hit, best[position - 1]!) < 0) position--;
        best.splice(position, 0, hit);
        if (best.length > limit) best.pop();
      }
      return best;
    },

    size() {
      return items.size;
    },
  };
}

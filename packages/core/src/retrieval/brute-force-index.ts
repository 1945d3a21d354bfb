import type { MemoryIndex, MemoryIndexHit } from '../contracts/index.js';
import { InvalidArgumentError } from '../errors/index.js';
import { requireOptions } from '../validation/index.js';
import {
  checkIndexIds,
  checkIndexScopeKey,
  clampK,
  keepBest,
  prepareIndexItems,
} from './memory-index-input.js';
import { normalizedVector } from './normalized-vector.js';

export interface BruteForceIndexOptions {
  /** Length of every vector; upserts and queries with another length are rejected. */
  dimensions: number;
}

/** Rows per block of a scope's vectors. */
const BLOCK_ROWS = 1024;

/**
 * The vectors of one scope: row `slot` is in block `slot / BLOCK_ROWS`. Fixed-size blocks, not
 * one array grown by doubling: growing never copies, and never allocates more than one block
 * ahead (fresh memory is paid for page by page).
 */
interface ScopeVectors {
  blocks: Float32Array[];
  /** Id per slot; undefined for a free slot. */
  ids: Array<string | undefined>;
  slotOf: Map<string, number>;
  free: number[];
}

/** What memory search reaches in a brute-force index beyond `MemoryIndex`. */
interface BruteForceAccess {
  score(vector: Float32Array, ids: Iterable<string>, scopeKey: string): MemoryIndexHit[];
  /** The stored (normalised) vectors of `ids`, one row each; undefined when one is missing. */
  rows(ids: readonly string[], scopeKey: string): Float32Array | undefined;
  /**
   * Adopts `matrix` (rows of normalised vectors, one per id) as the vectors of a scope the index
   * holds nothing of, without copying; false when the scope is not empty.
   */
  adopt(ids: readonly string[], matrix: Float32Array, scopeKey: string): boolean;
}

const accesses = new WeakMap<MemoryIndex, BruteForceAccess>();

/** The stored vectors of `ids` in a brute-force index (see `BruteForceAccess.rows`). */
export function indexedRows(
  index: MemoryIndex,
  ids: readonly string[],
  scopeKey: string,
): Float32Array | undefined {
  return accesses.get(index)?.rows(ids, scopeKey);
}

/** Loads saved vectors into an empty scope of a brute-force index (see `BruteForceAccess.adopt`). */
export function adoptRows(
  index: MemoryIndex,
  ids: readonly string[],
  matrix: Float32Array,
  scopeKey: string,
): boolean {
  return accesses.get(index)?.adopt(ids, matrix, scopeKey) ?? false;
}

/**
 * The cosine of `vector` to each of `ids` that `index` holds in `scopeKey` (unsorted), or
 * undefined when `index` is not a brute-force index. Lets memory search score a candidate set
 * exactly without scanning the whole scope.
 */
export function scoreIndexedIds(
  index: MemoryIndex,
  vector: Float32Array,
  ids: Iterable<string>,
  scopeKey: string,
): MemoryIndexHit[] | undefined {
  return accesses.get(index)?.score(vector, ids, scopeKey);
}

/**
 * An exact in-memory `MemoryIndex`: every query scores every item of the asked scope (cosine, via
 * the dot product of normalised vectors). Each scope's vectors are rows of contiguous
 * `Float32Array` blocks, so a query is one pass over memory: about 25 million multiply-adds for 100,000
 * cards of 256 dimensions. Linear in the scope's size, and the reference that approximate
 * indexes are tested against.
 *
 * @example
 * const index = createBruteForceIndex({ dimensions: 384 });
 * await index.upsert([{ id: 'card-1', vector, scopeKey: 'user:42' }]);
 * const hits = await index.query(queryVector, { k: 5, scopeKey: 'user:42' });
 */
export function createBruteForceIndex(options: BruteForceIndexOptions): MemoryIndex {
  const { dimensions } = requireOptions(options, 'createBruteForceIndex');
  if (!Number.isInteger(dimensions) || dimensions < 1) {
    throw new InvalidArgumentError({
      message: `dimensions must be a positive integer, got ${dimensions}`,
      argument: 'dimensions',
    });
  }
  // Scope of each id, so an upsert can move an id between scopes.
  const scopeOf = new Map<string, string>();
  const scopes = new Map<string, ScopeVectors>();

  function detach(id: string): void {
    const scopeKey = scopeOf.get(id);
    if (scopeKey === undefined) return;
    scopeOf.delete(id);
    const members = scopes.get(scopeKey)!;
    const slot = members.slotOf.get(id)!;
    members.slotOf.delete(id);
    members.ids[slot] = undefined;
    rowOf(members, slot).fill(0);
    members.free.push(slot);
    if (members.slotOf.size === 0) scopes.delete(scopeKey);
  }

  function attach(id: string, scopeKey: string, vector: Float32Array): void {
    let members = scopes.get(scopeKey);
    if (!members) {
      members = { blocks: [], ids: [], slotOf: new Map(), free: [] };
      scopes.set(scopeKey, members);
    }
    let slot = members.free.pop();
    if (slot === undefined) {
      slot = members.ids.length;
      members.ids.push(undefined);
      if (slot % BLOCK_ROWS === 0) {
        // A scope's first block is small: most scopes hold a few cards.
        const rows = slot === 0 ? 16 : BLOCK_ROWS;
        members.blocks.push(new Float32Array(rows * dimensions));
      } else {
        // A short block (a scope's first, or the last of adopted rows) grows to a full one.
        const block = Math.floor(slot / BLOCK_ROWS);
        const row = slot % BLOCK_ROWS;
        const current = members.blocks[block]!;
        if (row * dimensions >= current.length) {
          const grown = new Float32Array(Math.min(BLOCK_ROWS, 4 * row) * dimensions);
          grown.set(current);
          members.blocks[block] = grown;
        }
      }
    }
    members.ids[slot] = id;
    members.slotOf.set(id, slot);
    rowOf(members, slot).set(vector);
    scopeOf.set(id, scopeKey);
  }

  function rowOf(members: ScopeVectors, slot: number): Float32Array {
    const start = (slot % BLOCK_ROWS) * dimensions;
    return members.blocks[Math.floor(slot / BLOCK_ROWS)]!.subarray(start, start + dimensions);
  }

  /** Dot product of the query with row `slot`, clamped to the cosine's range. */
  function scoreRow(query: Float32Array, members: ScopeVectors, slot: number): number {
    const matrix = members.blocks[Math.floor(slot / BLOCK_ROWS)]!;
    // Four running sums: independent additions pipeline far better than one serial chain.
    let sum0 = 0;
    let sum1 = 0;
    let sum2 = 0;
    let sum3 = 0;
    const start = (slot % BLOCK_ROWS) * dimensions;
    const end = dimensions - (dimensions % 4);
    let position = 0;
    for (; position < end; position += 4) {
      const row = start + position;
      sum0 += query[position]! * matrix[row]!;
      sum1 += query[position + 1]! * matrix[row + 1]!;
      sum2 += query[position + 2]! * matrix[row + 2]!;
      sum3 += query[position + 3]! * matrix[row + 3]!;
    }
    for (; position < dimensions; position++) sum0 += query[position]! * matrix[start + position]!;
    return Math.max(-1, Math.min(1, sum0 + sum1 + sum2 + sum3));
  }

  const index: MemoryIndex = {
    dimensions,

    async upsert(batch) {
      // Validate the whole batch first: a bad item must not leave half of the batch applied.
      const prepared = prepareIndexItems(batch, (vector, argument) =>
        normalizedVector(vector, dimensions, argument),
      );
      for (const { id, scopeKey, vector } of prepared) {
        const members = scopeOf.get(id) === scopeKey ? scopes.get(scopeKey) : undefined;
        const slot = members?.slotOf.get(id);
        if (members && slot !== undefined) rowOf(members, slot).set(vector);
        else {
          detach(id);
          attach(id, scopeKey, vector);
        }
      }
    },

    async remove(ids) {
      checkIndexIds(ids);
      for (const id of ids) detach(id);
    },

    async query(vector, options) {
      const { k, scopeKey } = options ?? {};
      checkIndexScopeKey(scopeKey, 'scopeKey');
      const query = normalizedVector(vector, dimensions, 'vector');
      const members = scopes.get(scopeKey);
      const limit = clampK(k, members?.slotOf.size ?? 0);
      if (!members || limit === 0) return [];
      // Keep only the best `limit` hits in a sorted array: k is small, scopes can be large. A hit
      // object is only allocated for a score that enters it.
      const best: MemoryIndexHit[] = [];
      const { ids } = members;
      for (let slot = 0; slot < ids.length; slot++) {
        const id = ids[slot];
        if (id === undefined) continue;
        keepBest(best, id, scoreRow(query, members, slot), limit);
      }
      return best;
    },

    size() {
      return scopeOf.size;
    },
  };
  accesses.set(index, {
    score(vector, ids, scopeKey) {
      const query = normalizedVector(vector, dimensions, 'vector');
      const members = scopes.get(scopeKey);
      if (!members) return [];
      const hits: MemoryIndexHit[] = [];
      for (const id of ids) {
        const slot = members.slotOf.get(id);
        if (slot !== undefined) hits.push({ id, score: scoreRow(query, members, slot) });
      }
      return hits;
    },
    rows(ids, scopeKey) {
      const members = scopes.get(scopeKey);
      const matrix = new Float32Array(ids.length * dimensions);
      for (let position = 0; position < ids.length; position++) {
        const slot = members?.slotOf.get(ids[position]!);
        if (!members || slot === undefined) return undefined;
        matrix.set(rowOf(members, slot), position * dimensions);
      }
      return matrix;
    },
    adopt(ids, matrix, scopeKey) {
      if (scopes.has(scopeKey) || matrix.length !== ids.length * dimensions) return false;
      if (ids.some((id) => scopeOf.has(id))) return false;
      if (ids.length === 0) return true;
      const members: ScopeVectors = { blocks: [], ids: [...ids], slotOf: new Map(), free: [] };
      for (let start = 0; start < ids.length; start += BLOCK_ROWS) {
        const end = Math.min(ids.length, start + BLOCK_ROWS);
        members.blocks.push(matrix.subarray(start * dimensions, end * dimensions));
      }
      ids.forEach((id, slot) => {
        members.slotOf.set(id, slot);
        scopeOf.set(id, scopeKey);
      });
      scopes.set(scopeKey, members);
      return true;
    },
  });
  return index;
}

import type { MemoryIndexHit } from '@ctxmem/core';
import { clampK, compareHits } from '@ctxmem/core/driver-kit';
import type { NativeIndex } from './index-file.js';
import type { LabelTable, ScopeMembers } from './label-table.js';
import { clampScore, exactTopHits } from './scoring.js';

/**
 * The `k` nearest items of one scope to a normalised `query`: exact scoring for a scope small
 * enough (see `LabelTable.exactSearchMaxItems`), else a graph search filtered to the scope.
 */
export function searchScope(
  native: NativeIndex,
  table: LabelTable,
  {
    query,
    k,
    scopeKey,
    efSearch,
  }: { query: number[]; k: number; scopeKey: string; efSearch: number },
): MemoryIndexHit[] {
  const members = table.scope(scopeKey);
  const limit = clampK(k, members?.labels.size ?? 0);
  if (!members || limit === 0) return [];
  const exactLimit = table.exactSearchMaxItems();
  if (members.labels.size <= exactLimit) return exactSearch(native, table, members, query, limit);
  // A scope that grew well past the limit no longer needs its vector copies.
  if (members.labels.size > exactLimit * 2) members.vectors = undefined;
  return graphSearch(native, table, members, { query, limit, efSearch });
}

function exactSearch(
  native: NativeIndex,
  table: LabelTable,
  members: ScopeMembers,
  query: number[],
  limit: number,
): MemoryIndexHit[] {
  if (!members.vectors) members.vectors = new Map();
  const vectors = members.vectors;
  return exactTopHits(members.labels, Float32Array.from(query), limit, {
    vectorOf: (label) => {
      let vector = vectors.get(label);
      if (!vector) {
        // Loaded from disk or cached after the scope shrank: read the stored (normalised) vector once.
        vector = Float32Array.from(native.getPoint(label));
        vectors.set(label, vector);
      }
      return vector;
    },
    idOf: (label) => table.idOf(label),
  });
}

function graphSearch(
  native: NativeIndex,
  table: LabelTable,
  members: ScopeMembers,
  { query, limit, efSearch }: { query: number[]; limit: number; efSearch: number },
): MemoryIndexHit[] {
  const labels = members.labels;
  // Without other scopes the filter callback (a call into JavaScript per visited node) is waste.
  const filter = labels.size === table.size ? undefined : (label: number) => labels.has(label);
  let result = native.searchKnn(query, limit, filter);
  if (result.neighbors.length < limit) {
    // Heavily deleted or filtered graphs can strand the search; widen it once.
    native.setEf(Math.max(efSearch * 4, limit * 2));
    try {
      result = native.searchKnn(query, limit, filter);
    } finally {
      native.setEf(efSearch);
    }
  }
  if (result.neighbors.length < limit) return exactSearch(native, table, members, query, limit);
  return result.neighbors
    .map((label, position) => ({
      id: table.idOf(label),
      score: clampScore(1 - result.distances[position]!),
    }))
    .sort(compareHits);
}

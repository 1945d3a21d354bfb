/** The options of an HNSW memory index, checked and completed with their defaults. */
import { type FileLockOptions, InvalidArgumentError } from '@ctxmem/core';
import type { LoadProblemReason } from './index-file.js';
import { checkPositiveInteger } from './validate.js';

export interface HnswMemoryIndexOptions {
  /** Length of every vector; upserts and queries with another length are rejected. */
  dimensions: number;
  /**
   * File of the binary index. A JSON header goes beside it (`<path>.json`: format version,
   * dimensions, the id ↔ label map, a SHA-256 of the index) and a lock folder (`<path>.lock`) while
   * a flush runs. Without a path the index lives in memory only.
   * @default undefined
   */
  path?: string;
  /**
   * Distance used by the graph. Only cosine is supported: memory vectors are compared by angle.
   * @default 'cosine'
   */
  space?: 'cosine';
  /**
   * Candidates kept while searching (hnswlib's `ef`). Higher is more accurate and slower; the
   * library default of 10 misses many true neighbours on large indexes.
   * @default 128
   */
  efSearch?: number;
  /**
   * Candidates kept while inserting. Higher builds a better graph, more slowly.
   * @default 200
   */
  efConstruction?: number;
  /**
   * Links per node in the graph. Higher is more accurate on large or high-dimensional sets and
   * uses more memory.
   * @default 16
   */
  M?: number;
  /**
   * Slots allocated up front. The index doubles its capacity when full, so this only saves resizes.
   * @default 1024
   */
  initialCapacity?: number;
  /**
   * Scopes with at most this many items are searched exactly (every vector of the scope scored)
   * instead of through the graph. A graph search filtered to a small scope must walk much of the
   * graph before it finds enough members, which is slower than scoring them all. `'auto'` uses
   * `max(256, √(256 · live items))`; `0` always uses the graph. Exact search keeps a copy of the
   * scope's vectors in memory (4 bytes per dimension per item).
   * @default 'auto'
   */
  exactSearchMaxItems?: number | 'auto';
  /**
   * Seed of the graph's level assignment, so that the same inserts build the same graph.
   * @default 100
   */
  randomSeed?: number;
  /**
   * Settings of the cross-process lock taken while loading and flushing.
   * @default {}
   */
  lock?: FileLockOptions;
  /**
   * Called once while opening when a saved index exists but cannot be used (corrupt, truncated,
   * other dimensions or format version). The index then starts empty with `needsRebuild` set.
   * @default undefined
   */
  onLoadProblem?: (problem: HnswLoadProblem) => void;
}

/** Why the saved index was not loaded; see `HnswMemoryIndex.loadProblem`. */
export interface HnswLoadProblem {
  reason: LoadProblemReason;
  message: string;
  path: string;
  cause?: unknown;
}

/** Counts that explain the index's memory use and search path. */
export interface HnswMemoryIndexStats {
  /** Items that queries can return. */
  liveItems: number;
  /** Slots of removed items, reused by later inserts. */
  deletedSlots: number;
  /** Allocated slots; grows by doubling. */
  capacity: number;
  scopes: number;
  /** Items whose vectors are also held in JavaScript for exact search of small scopes. */
  cachedVectors: number;
}

export interface Settings {
  dimensions: number;
  path: string | undefined;
  efSearch: number;
  efConstruction: number;
  M: number;
  initialCapacity: number;
  exactSearchMaxItems: number | 'auto';
  randomSeed: number;
  lock: FileLockOptions;
}

/** Checks `options` and fills in the defaults; throws `InvalidArgumentError` naming the option. */
export function resolveSettings(options: HnswMemoryIndexOptions): {
  settings: Settings;
  onLoadProblem: HnswMemoryIndexOptions['onLoadProblem'];
} {
  const {
    dimensions,
    path,
    space = 'cosine',
    efSearch = 128,
    efConstruction = 200,
    M = 16,
    initialCapacity = 1024,
    exactSearchMaxItems = 'auto',
    randomSeed = 100,
    lock = {},
    onLoadProblem,
  } = options ?? ({} as HnswMemoryIndexOptions);
  checkPositiveInteger('dimensions', dimensions);
  checkPositiveInteger('efSearch', efSearch);
  checkPositiveInteger('efConstruction', efConstruction);
  checkPositiveInteger('initialCapacity', initialCapacity);
  if (!Number.isInteger(M) || M < 2) {
    throw new InvalidArgumentError({
      message: `M must be an integer >= 2, got ${M}`,
      argument: 'M',
    });
  }
  if (space !== 'cosine') {
    throw new InvalidArgumentError({
      message: `space must be 'cosine', got ${String(space)}`,
      argument: 'space',
    });
  }
  if (
    exactSearchMaxItems !== 'auto' &&
    (!Number.isInteger(exactSearchMaxItems) || exactSearchMaxItems < 0)
  ) {
    throw new InvalidArgumentError({
      message: `exactSearchMaxItems must be 'auto' or an integer >= 0, got ${exactSearchMaxItems}`,
      argument: 'exactSearchMaxItems',
    });
  }
  if (!Number.isInteger(randomSeed) || randomSeed < 0) {
    throw new InvalidArgumentError({
      message: `randomSeed must be an integer >= 0, got ${randomSeed}`,
      argument: 'randomSeed',
    });
  }
  if (path !== undefined && (typeof path !== 'string' || path.length === 0)) {
    throw new InvalidArgumentError({
      message: 'path must be a non-empty string',
      argument: 'path',
    });
  }
  return {
    settings: {
      dimensions,
      path,
      efSearch,
      efConstruction,
      M,
      initialCapacity,
      exactSearchMaxItems,
      randomSeed,
      lock,
    },
    onLoadProblem,
  };
}

import { randomUUID } from 'node:crypto';
import { rename, rm, stat, writeFile } from 'node:fs/promises';
import {
  type FileLockOptions,
  InvalidArgumentError,
  type MemoryIndex,
  type MemoryIndexHit,
  type MemoryIndexItem,
  StorageError,
} from '@ctxmem/core';
import { withFileLock } from '@ctxmem/core/driver-kit';
import hnswlib from 'hnswlib-node';
import {
  fingerprint,
  fsyncFile,
  fsyncFolder,
  headerPathFor,
  INDEX_FORMAT,
  INDEX_FORMAT_VERSION,
  type IndexHeader,
  LoadProblem,
  type LoadProblemReason,
  parseHeader,
  readHeaderText,
  verifyIndexFile,
} from './index-file.js';
import {
  checkId,
  checkPositiveInteger,
  clampK,
  normalisedArray,
  type PreparedItem,
  prepareItems,
} from './validate.js';

// hnswlib-node is CommonJS: its classes hang off the default export.
const { HierarchicalNSW } = hnswlib;
type NativeIndex = InstanceType<typeof HierarchicalNSW>;

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

interface ScopeMembers {
  labels: Set<number>;
  /** Normalised vectors of the members, present only while the scope is searched exactly. */
  vectors: Map<number, Float32Array> | undefined;
}

interface LabelEntry {
  id: string;
  scopeKey: string;
}

interface Settings {
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

/** Higher score first; equal scores by id, so results never depend on graph order. */
function compareHits(left: MemoryIndexHit, right: MemoryIndexHit): number {
  if (left.score !== right.score) return right.score - left.score;
  return left.id < right.id ? -1 : left.id > right.id ? 1 : 0;
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

const clampScore = (score: number) => Math.max(-1, Math.min(1, score));

function nativeError(action: string, path: string | undefined, error: unknown): StorageError {
  const detail = error instanceof Error ? error.message : String(error);
  return new StorageError({
    message: `HNSW index could not ${action}: ${detail}`,
    path,
    cause: error,
  });
}

/**
 * A `MemoryIndex` on an HNSW graph (hnswlib, native): approximate nearest neighbours in about a
 * millisecond at 100k items, saved to disk with `flush()`. String ids map to numeric labels;
 * queries only see their own scope (graph search with a label filter, or exact scoring for small
 * scopes). Removed items are marked deleted and their slots reused.
 *
 * Open with `createHnswMemoryIndex` / `HnswMemoryIndex.open`. When the saved index is missing or
 * unusable, the index starts empty and `needsRebuild` is true: fill it from the memory store with
 * `rebuild(items)` — the store is the source of truth, the index only a cache of it.
 */
export class HnswMemoryIndex implements MemoryIndex {
  readonly dimensions: number;
  /** The binary index file, when the index is file-backed. */
  readonly path: string | undefined;

  readonly #settings: Settings;
  #native: NativeIndex;
  readonly #idToLabel = new Map<string, number>();
  readonly #labels = new Map<number, LabelEntry>();
  readonly #scopes = new Map<string, ScopeMembers>();
  #nextLabel = 0;
  #dirty = false;
  #closed = false;
  #needsRebuild = true;
  #loadProblem: HnswLoadProblem | undefined;
  /** Serialises writes: a native save runs on a worker thread and must not see a change midway. */
  #queue: Promise<unknown> = Promise.resolve();

  private constructor(settings: Settings) {
    this.#settings = settings;
    this.dimensions = settings.dimensions;
    this.path = settings.path;
    this.#native = this.#createNative(settings.initialCapacity);
  }

  /** Opens (or creates) an index; loads the saved one when `path` is given and it is valid. */
  static async open(options: HnswMemoryIndexOptions): Promise<HnswMemoryIndex> {
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
    const index = new HnswMemoryIndex({
      dimensions,
      path,
      efSearch,
      efConstruction,
      M,
      initialCapacity,
      exactSearchMaxItems,
      randomSeed,
      lock,
    });
    if (path !== undefined) {
      await withFileLock(path, () => index.#load(path), lock);
      const problem = index.#loadProblem;
      if (problem && problem.reason !== 'missing') onLoadProblem?.(problem);
    }
    return index;
  }

  /**
   * True while the index does not hold a saved state: it was created empty (in memory, or no
   * saved index yet) or the saved one was unusable. Fill it with `rebuild(items)`.
   */
  get needsRebuild(): boolean {
    return this.#needsRebuild;
  }

  /** Why the saved index was not loaded (`reason: 'missing'` on first use), if it was not. */
  get loadProblem(): HnswLoadProblem | undefined {
    return this.#loadProblem;
  }

  size(): number {
    return this.#labels.size;
  }

  stats(): HnswMemoryIndexStats {
    let cachedVectors = 0;
    for (const members of this.#scopes.values()) cachedVectors += members.vectors?.size ?? 0;
    return {
      liveItems: this.#labels.size,
      deletedSlots: this.#native.getCurrentCount() - this.#labels.size,
      capacity: this.#native.getMaxElements(),
      scopes: this.#scopes.size,
      cachedVectors,
    };
  }

  async upsert(items: readonly MemoryIndexItem[]): Promise<void> {
    this.#assertOpen();
    const prepared = prepareItems(items, this.dimensions);
    await this.#exclusive(() => this.#apply(prepared));
  }

  async remove(ids: readonly string[]): Promise<void> {
    this.#assertOpen();
    if (!Array.isArray(ids)) {
      throw new InvalidArgumentError({ message: 'ids must be an array', argument: 'ids' });
    }
    ids.forEach((id, position) => {
      checkId(id, `ids[${position}]`);
    });
    await this.#exclusive(() => {
      for (const id of ids) {
        const label = this.#idToLabel.get(id);
        if (label === undefined) continue;
        try {
          this.#native.markDelete(label);
        } catch (error) {
          throw nativeError('remove an item', this.path, error);
        }
        this.#forget(label);
        this.#dirty = true;
      }
    });
  }

  async query(
    vector: Float32Array,
    options: { k: number; scopeKey: string },
  ): Promise<MemoryIndexHit[]> {
    this.#assertOpen();
    const { k, scopeKey } = options ?? ({} as { k: number; scopeKey: string });
    if (typeof scopeKey !== 'string') {
      throw new InvalidArgumentError({
        message: 'scopeKey must be a string',
        argument: 'scopeKey',
      });
    }
    const query = normalisedArray(vector, this.dimensions, 'vector');
    const members = this.#scopes.get(scopeKey);
    const limit = clampK(k, members?.labels.size ?? 0);
    if (!members || limit === 0) return [];
    const exactLimit = this.#exactSearchMaxItems();
    if (members.labels.size <= exactLimit) return this.#exactSearch(members, query, limit);
    // A scope that grew well past the limit no longer needs its vector copies.
    if (members.labels.size > exactLimit * 2) members.vectors = undefined;
    return this.#graphSearch(members, query, limit);
  }

  /**
   * Replaces the whole content with `items` (typically every card of the memory store) and clears
   * `needsRebuild`. Call `flush()` afterwards to save it.
   */
  async rebuild(items: readonly MemoryIndexItem[]): Promise<void> {
    this.#assertOpen();
    const prepared = prepareItems(items, this.dimensions);
    await this.#exclusive(() => {
      const capacity = Math.max(this.#settings.initialCapacity, Math.ceil(prepared.length * 1.25));
      this.#native = this.#createNative(capacity);
      this.#idToLabel.clear();
      this.#labels.clear();
      this.#scopes.clear();
      this.#nextLabel = 0;
      this.#apply(prepared);
      this.#needsRebuild = false;
      this.#dirty = true;
    });
  }

  /**
   * Saves the index atomically under a cross-process lock: the binary index and its header go to
   * temporary files, are fsynced and renamed over the old pair. Does nothing for an in-memory
   * index or when nothing changed since the last save.
   */
  async flush(): Promise<void> {
    this.#assertOpen();
    await this.#exclusive(() => this.#flushNow());
  }

  /** Saves pending changes (file-backed) and releases the index; later calls fail. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    await this.#exclusive(async () => {
      if (this.#closed) return;
      await this.#flushNow();
      this.#closed = true;
      // Drop the native graph and the vector copies now rather than with this object.
      this.#native = this.#createNative(1);
      for (const members of this.#scopes.values()) members.vectors = undefined;
    });
  }

  #createNative(capacity: number): NativeIndex {
    const { dimensions, M, efConstruction, randomSeed, efSearch } = this.#settings;
    const native = new HierarchicalNSW('cosine', dimensions);
    native.initIndex({
      maxElements: capacity,
      m: M,
      efConstruction,
      randomSeed,
      allowReplaceDeleted: true,
    });
    native.setEf(efSearch);
    return native;
  }

  #assertOpen(): void {
    if (this.#closed) {
      throw new StorageError({ message: 'The HNSW index is closed', path: this.path });
    }
  }

  #exclusive<T>(action: () => T | Promise<T>): Promise<T> {
    const run = this.#queue.then(action);
    this.#queue = run.catch(() => {});
    return run;
  }

  #exactSearchMaxItems(): number {
    const limit = this.#settings.exactSearchMaxItems;
    if (limit !== 'auto') return limit;
    return Math.max(256, Math.floor(Math.sqrt(256 * this.#labels.size)));
  }

  #apply(items: readonly PreparedItem[]): void {
    const added = items.filter((item) => !this.#idToLabel.has(item.id)).length;
    this.#ensureCapacity(added);
    for (const item of items) {
      const existing = this.#idToLabel.get(item.id);
      try {
        if (existing === undefined) {
          const label = this.#nextLabel;
          // Reuses the slot of a removed item when there is one.
          this.#native.addPoint(item.vector, label, true);
          this.#nextLabel += 1;
          this.#idToLabel.set(item.id, label);
          this.#labels.set(label, { id: item.id, scopeKey: item.scopeKey });
          this.#join(item.scopeKey, label, item.vector);
        } else {
          // Updates in place; `replaceDeleted` must stay off here or hnswlib would duplicate it.
          this.#native.addPoint(item.vector, existing);
          const entry = this.#labels.get(existing)!;
          this.#leave(entry.scopeKey, existing);
          entry.scopeKey = item.scopeKey;
          this.#join(item.scopeKey, existing, item.vector);
        }
      } catch (error) {
        throw nativeError('add an item', this.path, error);
      }
      this.#dirty = true;
    }
  }

  #ensureCapacity(added: number): void {
    const used = this.#native.getCurrentCount();
    const reusable = used - this.#labels.size;
    const needed = used + Math.max(0, added - reusable);
    const capacity = this.#native.getMaxElements();
    if (needed <= capacity) return;
    try {
      this.#native.resizeIndex(Math.max(needed, capacity * 2));
    } catch (error) {
      throw nativeError('grow', this.path, error);
    }
  }

  #join(scopeKey: string, label: number, vector: number[]): void {
    let members = this.#scopes.get(scopeKey);
    if (!members) {
      members = { labels: new Set(), vectors: undefined };
      this.#scopes.set(scopeKey, members);
    }
    members.labels.add(label);
    const exactLimit = this.#exactSearchMaxItems();
    // Copy the vector now, while it is at hand, if the scope will be searched exactly: reading it
    // back from the native index later costs far more.
    if (members.labels.size <= exactLimit) members.vectors ??= new Map();
    else if (members.labels.size > exactLimit * 2) members.vectors = undefined;
    members.vectors?.set(label, Float32Array.from(vector));
  }

  #leave(scopeKey: string, label: number): void {
    const members = this.#scopes.get(scopeKey);
    if (!members) return;
    members.labels.delete(label);
    members.vectors?.delete(label);
    if (members.labels.size === 0) this.#scopes.delete(scopeKey);
  }

  #forget(label: number): void {
    const entry = this.#labels.get(label);
    if (!entry) return;
    this.#labels.delete(label);
    this.#idToLabel.delete(entry.id);
    this.#leave(entry.scopeKey, label);
  }

  #exactSearch(members: ScopeMembers, query: number[], limit: number): MemoryIndexHit[] {
    if (!members.vectors) members.vectors = new Map();
    const vectors = members.vectors;
    const queryVector = Float32Array.from(query);
    const best: MemoryIndexHit[] = [];
    for (const label of members.labels) {
      let vector = vectors.get(label);
      if (!vector) {
        // Loaded from disk or cached after the scope shrank: read the stored (normalised) vector once.
        vector = Float32Array.from(this.#native.getPoint(label));
        vectors.set(label, vector);
      }
      const score = clampScore(dotProduct(vector, queryVector));
      const id = this.#labels.get(label)!.id;
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
  }

  #graphSearch(members: ScopeMembers, query: number[], limit: number): MemoryIndexHit[] {
    const labels = members.labels;
    // Without other scopes the filter callback (a call into JavaScript per visited node) is waste.
    const filter =
      labels.size === this.#labels.size ? undefined : (label: number) => labels.has(label);
    let result = this.#native.searchKnn(query, limit, filter);
    if (result.neighbors.length < limit) {
      // Heavily deleted or filtered graphs can strand the search; widen it once.
      const { efSearch } = this.#settings;
      this.#native.setEf(Math.max(efSearch * 4, limit * 2));
      try {
        result = this.#native.searchKnn(query, limit, filter);
      } finally {
        this.#native.setEf(efSearch);
      }
    }
    if (result.neighbors.length < limit) return this.#exactSearch(members, query, limit);
    return result.neighbors
      .map((label, position) => ({
        id: this.#labels.get(label)!.id,
        score: clampScore(1 - result.distances[position]!),
      }))
      .sort(compareHits);
  }

  async #load(path: string): Promise<void> {
    try {
      const headerText = await readHeaderText(headerPathFor(path));
      if (headerText === undefined) {
        const indexExists = await stat(path).then(
          () => true,
          () => false,
        );
        throw indexExists
          ? new LoadProblem('corrupt', 'the index file has no header beside it')
          : new LoadProblem('missing', 'no index has been saved at this path yet');
      }
      const header = parseHeader(headerText, this.dimensions);
      await verifyIndexFile(path, header);
      const native = new HierarchicalNSW('cosine', this.dimensions);
      try {
        await native.readIndex(path, true);
      } catch (error) {
        throw new LoadProblem('corrupt', 'hnswlib could not read the index file', { cause: error });
      }
      const nativeLabels = native.getIdsList();
      const present = new Set(nativeLabels);
      if (
        header.items.some(([, label]) => !present.has(label)) ||
        nativeLabels.some((label) => label >= header.nextLabel)
      ) {
        throw new LoadProblem('corrupt', 'the index file and its header list different items');
      }
      native.setEf(this.#settings.efSearch);
      this.#native = native;
      this.#nextLabel = header.nextLabel;
      for (const [id, label, scopePosition] of header.items) {
        const scopeKey = header.scopes[scopePosition]!;
        this.#idToLabel.set(id, label);
        this.#labels.set(label, { id, scopeKey });
        let members = this.#scopes.get(scopeKey);
        if (!members) {
          members = { labels: new Set(), vectors: undefined };
          this.#scopes.set(scopeKey, members);
        }
        members.labels.add(label);
      }
      this.#needsRebuild = false;
      this.#loadProblem = undefined;
    } catch (error) {
      if (!(error instanceof LoadProblem)) throw error;
      this.#loadProblem = {
        reason: error.reason,
        message: error.message,
        path,
        ...(error.cause === undefined ? {} : { cause: error.cause }),
      };
      this.#needsRebuild = true;
    }
  }

  async #flushNow(): Promise<void> {
    const path = this.path;
    if (path === undefined || !this.#dirty) return;
    await withFileLock(path, () => this.#write(path), this.#settings.lock);
    this.#dirty = false;
  }

  async #write(path: string): Promise<void> {
    const headerPath = headerPathFor(path);
    const token = `${process.pid}-${randomUUID()}`;
    const temporaryIndex = `${path}.${token}.tmp`;
    const temporaryHeader = `${headerPath}.${token}.tmp`;
    try {
      await this.#native.writeIndex(temporaryIndex);
      const print = await fingerprint(temporaryIndex);
      await writeFile(temporaryHeader, JSON.stringify(this.#header(print)));
      await fsyncFile(temporaryIndex);
      await fsyncFile(temporaryHeader);
      // A crash between the two renames leaves a pair whose checksum disagrees: the next open
      // reports it and asks for a rebuild instead of trusting a mixed pair.
      await rename(temporaryIndex, path);
      await rename(temporaryHeader, headerPath);
      await fsyncFolder(path);
    } catch (error) {
      await rm(temporaryIndex, { force: true }).catch(() => {});
      await rm(temporaryHeader, { force: true }).catch(() => {});
      if (StorageError.isInstance(error)) throw error;
      const detail = error instanceof Error ? error.message : String(error);
      throw new StorageError({
        message: `Could not save the HNSW index ${path}: ${detail}`,
        path,
        cause: error,
      });
    }
  }

  #header(print: { bytes: number; sha256: string }): IndexHeader {
    const scopes: string[] = [];
    const scopePositions = new Map<string, number>();
    const items: IndexHeader['items'] = [];
    for (const [label, { id, scopeKey }] of this.#labels) {
      let position = scopePositions.get(scopeKey);
      if (position === undefined) {
        position = scopes.length;
        scopes.push(scopeKey);
        scopePositions.set(scopeKey, position);
      }
      items.push([id, label, position]);
    }
    return {
      format: INDEX_FORMAT,
      version: INDEX_FORMAT_VERSION,
      space: 'cosine',
      dimensions: this.dimensions,
      count: items.length,
      nextLabel: this.#nextLabel,
      index: print,
      scopes,
      items,
    };
  }
}

/**
 * Opens an HNSW memory index; see `HnswMemoryIndex`.
 *
 * @example
 * const index = await createHnswMemoryIndex({ dimensions: 384, path: '.ctxmem/cards.hnsw' });
 * if (index.needsRebuild) await index.rebuild(await loadAllCardVectors());
 * await index.upsert([{ id: card.id, vector, scopeKey }]);
 * await index.flush();
 */
export function createHnswMemoryIndex(options: HnswMemoryIndexOptions): Promise<HnswMemoryIndex> {
  return HnswMemoryIndex.open(options);
}

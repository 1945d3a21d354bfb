import {
  type MemoryIndex,
  type MemoryIndexHit,
  type MemoryIndexItem,
  StorageError,
} from '@ctxmem/core';
import { checkIndexIds, checkIndexScopeKey, withFileLock } from '@ctxmem/core/driver-kit';
import {
  type HnswLoadProblem,
  type HnswMemoryIndexOptions,
  type HnswMemoryIndexStats,
  resolveSettings,
  type Settings,
} from './hnsw-settings.js';
import {
  buildHeader,
  createNativeIndex,
  LoadProblem,
  type NativeIndex,
  nativeError,
  readIndexPair,
  writeIndexPair,
} from './index-file.js';
import { LabelTable } from './label-table.js';
import { searchScope } from './scope-search.js';
import { normalisedArray, type PreparedItem, prepareItems } from './validate.js';

export type {
  HnswLoadProblem,
  HnswMemoryIndexOptions,
  HnswMemoryIndexStats,
} from './hnsw-settings.js';

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
  readonly #labels: LabelTable;
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
    this.#native = createNativeIndex(settings, settings.initialCapacity);
    this.#labels = new LabelTable(settings.exactSearchMaxItems);
  }

  /** Opens (or creates) an index; loads the saved one when `path` is given and it is valid. */
  static async open(options: HnswMemoryIndexOptions): Promise<HnswMemoryIndex> {
    const { settings, onLoadProblem } = resolveSettings(options);
    const index = new HnswMemoryIndex(settings);
    const { path, lock } = settings;
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
    return {
      liveItems: this.#labels.size,
      deletedSlots: this.#native.getCurrentCount() - this.#labels.size,
      capacity: this.#native.getMaxElements(),
      scopes: this.#labels.scopeCount,
      cachedVectors: this.#labels.cachedVectors(),
    };
  }

  async upsert(items: readonly MemoryIndexItem[]): Promise<void> {
    this.#assertOpen();
    const prepared = prepareItems(items, this.dimensions);
    await this.#exclusive(() => this.#apply(prepared));
  }

  async remove(ids: readonly string[]): Promise<void> {
    this.#assertOpen();
    checkIndexIds(ids);
    await this.#exclusive(() => {
      for (const id of ids) {
        const label = this.#labels.labelOf(id);
        if (label === undefined) continue;
        try {
          this.#native.markDelete(label);
        } catch (error) {
          throw nativeError('remove an item', this.path, error);
        }
        this.#labels.forget(label);
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
    checkIndexScopeKey(scopeKey, 'scopeKey');
    const query = normalisedArray(vector, this.dimensions, 'vector');
    const { efSearch } = this.#settings;
    return searchScope(this.#native, this.#labels, { query, k, scopeKey, efSearch });
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
      this.#native = createNativeIndex(this.#settings, capacity);
      this.#labels.clear();
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
      this.#native = createNativeIndex(this.#settings, 1);
      this.#labels.dropVectors();
    });
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

  #apply(items: readonly PreparedItem[]): void {
    const added = items.filter((item) => !this.#labels.has(item.id)).length;
    this.#ensureCapacity(added);
    for (const item of items) {
      const existing = this.#labels.labelOf(item.id);
      try {
        if (existing === undefined) {
          // Reuses the slot of a removed item when there is one.
          this.#native.addPoint(item.vector, this.#labels.nextLabel, true);
          this.#labels.add(item.id, item.scopeKey, item.vector);
        } else {
          // Updates in place; `replaceDeleted` must stay off here or hnswlib would duplicate it.
          this.#native.addPoint(item.vector, existing);
          this.#labels.move(existing, item.scopeKey, item.vector);
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

  async #load(path: string): Promise<void> {
    try {
      const { native, header } = await readIndexPair(path, this.dimensions);
      native.setEf(this.#settings.efSearch);
      this.#native = native;
      this.#labels.restoreNextLabel(header.nextLabel);
      for (const [id, label, scopePosition] of header.items) {
        this.#labels.restore(id, label, header.scopes[scopePosition]!);
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
    await withFileLock(
      path,
      () =>
        writeIndexPair(path, this.#native, (print) =>
          buildHeader(this.#labels.entries, {
            dimensions: this.dimensions,
            nextLabel: this.#labels.nextLabel,
            print,
          }),
        ),
      this.#settings.lock,
    );
    this.#dirty = false;
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

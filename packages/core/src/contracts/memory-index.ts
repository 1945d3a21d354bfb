export interface MemoryIndexItem {
  id: string;
  vector: Float32Array;
  /** The card's scope key: queries only ever return items of the scope key they ask for. */
  scopeKey: string;
}

export interface MemoryIndexHit {
  id: string;
  /** Cosine similarity in [-1, 1]. */
  score: number;
}

/**
 * A vector index over memory cards. Required: upsert, remove, query, size. Optional capabilities:
 * `flush` (persist now) and `close`.
 */
export interface MemoryIndex {
  readonly dimensions: number;
  upsert(items: readonly MemoryIndexItem[]): Promise<void>;
  remove(ids: readonly string[]): Promise<void>;
  /** The `k` nearest items of `scopeKey`; `k` is clamped to what exists. */
  query(vector: Float32Array, options: { k: number; scopeKey: string }): Promise<MemoryIndexHit[]>;
  size(): number;
  flush?(): Promise<void>;
  close?(): Promise<void>;
}

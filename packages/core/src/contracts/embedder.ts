/** Turns texts into vectors. Vectors are L2-normalised so that cosine equals the dot product. */
export interface Embedder {
  /** Identifies the model and settings: cached vectors from another id are recomputed. */
  readonly id: string;
  readonly dimensions: number;
  embed(texts: readonly string[], options?: { abortSignal?: AbortSignal }): Promise<Float32Array[]>;
}

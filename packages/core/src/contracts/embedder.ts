/**
 * What an embedder's vectors capture, so memory search can fuse them with keyword scores the right
 * way: `lexical` vectors only re-encode the words (the built-in hashing embedder), so keyword
 * scores lead; `semantic` vectors come from a model that matches meanings and paraphrases, so the
 * vector side leads.
 */
export type EmbedderKind = 'lexical' | 'semantic';

/** Turns texts into vectors. Vectors are L2-normalised so that cosine equals the dot product. */
export interface Embedder {
  /** Identifies the model and settings: cached vectors from another id are recomputed. */
  readonly id: string;
  readonly dimensions: number;
  /**
   * What the vectors capture; memory search picks its default fusion from it. An embedder that
   * does not say is taken for a model, that is `semantic`.
   * @default 'semantic'
   */
  readonly kind?: EmbedderKind;
  embed(texts: readonly string[], options?: { abortSignal?: AbortSignal }): Promise<Float32Array[]>;
}

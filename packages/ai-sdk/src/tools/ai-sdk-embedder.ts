import { type Embedder, InvalidArgumentError } from '@ctxmem/core';
import { type EmbeddingModel, embedMany } from 'ai';

export interface AiSdkEmbedderOptions {
  /** Length of the model's vectors (checked on every call). */
  dimensions: number;
  /**
   * Identifies the model and settings in cached vectors.
   * @default `ai-sdk:<provider>:<modelId>:<dimensions>`
   */
  id?: string;
  /** Retries of a failed embedding call. @default 2 */
  maxRetries?: number;
  /** Provider options passed to `embedMany` (for example a smaller output dimension). @default undefined */
  providerOptions?: Parameters<typeof embedMany>[0]['providerOptions'];
}

function modelName(model: EmbeddingModel): string {
  if (typeof model === 'string') return model;
  return `${model.provider}:${model.modelId}`;
}

function normalize(vector: readonly number[], dimensions: number): Float32Array {
  if (vector.length !== dimensions) {
    throw new InvalidArgumentError({
      message: `The embedding model returned ${vector.length} dimensions, expected ${dimensions}`,
      argument: 'dimensions',
    });
  }
  let squared = 0;
  for (const value of vector) squared += value * value;
  const result = Float32Array.from(vector);
  // A zero vector stays zero: it matches nothing, which is the honest answer.
  if (squared === 0) return result;
  const scale = 1 / Math.sqrt(squared);
  for (let index = 0; index < result.length; index++) result[index]! *= scale;
  return result;
}

/**
 * A ctxmem `Embedder` over an AI SDK embedding model (`embedMany`), with L2-normalised vectors,
 * for `createMemorySearch({ embedder })` and memory indexes.
 */
export function aiSdkEmbedder(
  model: EmbeddingModel,
  { dimensions, id, maxRetries = 2, providerOptions }: AiSdkEmbedderOptions,
): Embedder {
  if (!Number.isInteger(dimensions) || dimensions <= 0) {
    throw new InvalidArgumentError({
      message: `dimensions must be a positive integer, got ${String(dimensions)}`,
      argument: 'dimensions',
    });
  }
  return {
    id: id ?? `ai-sdk:${modelName(model)}:${dimensions}`,
    dimensions,
    async embed(texts, { abortSignal } = {}) {
      if (texts.length === 0) return [];
      const { embeddings } = await embedMany({
        model,
        values: [...texts],
        maxRetries,
        ...(abortSignal ? { abortSignal } : {}),
        ...(providerOptions ? { providerOptions } : {}),
      });
      return embeddings.map((vector) => normalize(vector, dimensions));
    },
  };
}

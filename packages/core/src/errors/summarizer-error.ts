import { CtxmemError, type CtxmemErrorOptions } from './ctxmem-error.js';

/** A summarizer failed: the model threw, timed out, was aborted or returned nothing usable. */
export class SummarizerError extends CtxmemError {
  static override readonly errorName = 'CtxmemSummarizerError';
  /** Name of the summarizer that failed. */
  readonly summarizer: string;

  constructor({ summarizer, ...options }: CtxmemErrorOptions & { summarizer: string }) {
    super(options);
    this.summarizer = summarizer;
  }

  static override isInstance(error: unknown): error is SummarizerError {
    return CtxmemError.hasMarker(error, SummarizerError.errorName);
  }
}

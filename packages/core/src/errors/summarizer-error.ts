import { CtxmemError } from './ctxmem-error.js';

const name = 'CtxmemSummarizerError';
const marker = `ctxmem.error.${name}`;
const symbol = Symbol.for(marker);

/** A summarizer failed: the model threw, timed out, was aborted or returned nothing usable. */
export class SummarizerError extends CtxmemError {
  private readonly [symbol] = true;
  /** Name of the summarizer that failed. */
  readonly summarizer: string;

  constructor({
    message,
    cause,
    summarizer,
  }: {
    message: string;
    cause?: unknown;
    summarizer: string;
  }) {
    super({ name, message, cause });
    this.summarizer = summarizer;
  }

  static override isInstance(error: unknown): error is SummarizerError {
    return CtxmemError.hasMarker(error, marker);
  }
}

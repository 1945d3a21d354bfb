import type { SummarizerFailureKind } from '../contracts/index.js';
import { CtxmemError, type CtxmemErrorOptions } from './ctxmem-error.js';

/** A summarizer failed: the model threw, timed out, was aborted or returned nothing usable. */
export class SummarizerError extends CtxmemError<{
  summarizer: string;
  kind: SummarizerFailureKind;
}> {
  static override readonly errorName = 'CtxmemSummarizerError';
  /** Name of the summarizer that failed. */
  declare readonly summarizer: string;
  /** Why, in a word that never quotes the input: safe to store (see `SummarizerFailureKind`). */
  declare readonly kind: SummarizerFailureKind;

  constructor(
    given: CtxmemErrorOptions & {
      summarizer: string;
      /** @default 'error' */
      kind?: SummarizerFailureKind;
    },
  ) {
    // Building an error must not fail: see CtxmemError.
    const { kind = 'error', ...options } = given ?? ({} as typeof given);
    super({ ...options, kind });
  }

  static override readonly isInstance = CtxmemError.markerGuard<SummarizerError>(this);
}

import { CtxmemError } from './ctxmem-error.js';

/** Input JSON is in no format ctxmem can read (OpenAI Chat Completions or AI SDK messages). */
export class UnsupportedFormatError extends CtxmemError {
  static override readonly errorName = 'CtxmemUnsupportedFormatError';

  static override readonly isInstance = CtxmemError.markerGuard<UnsupportedFormatError>(this);
}

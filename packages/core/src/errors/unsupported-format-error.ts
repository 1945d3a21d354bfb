import { CtxmemError } from './ctxmem-error.js';

const name = 'CtxmemUnsupportedFormatError';
const marker = `ctxmem.error.${name}`;
const symbol = Symbol.for(marker);

/** Input JSON is in no format ctxmem can read (OpenAI Chat Completions or AI SDK messages). */
export class UnsupportedFormatError extends CtxmemError {
  private readonly [symbol] = true;

  constructor({
    message,
    cause,
  }: {
    message: string;
    cause?: unknown;
  }) {
    super({ name, message, cause });
  }

  static override isInstance(error: unknown): error is UnsupportedFormatError {
    return CtxmemError.hasMarker(error, marker);
  }
}

import { CtxmemError } from './ctxmem-error.js';

const name = 'CtxmemInvalidMessageError';
const marker = `ctxmem.error.${name}`;
const symbol = Symbol.for(marker);

/** A message or message array is malformed (unknown role, dangling tool call, bad content). */
export class InvalidMessageError extends CtxmemError {
  private readonly [symbol] = true;
  /** Where in the input the problem is, for example `messages[3].content[0]`. */
  readonly path: string;

  constructor({
    message,
    cause,
    path,
  }: {
    message: string;
    cause?: unknown;
    path: string;
  }) {
    super({ name, message, cause });
    this.path = path;
  }

  static override isInstance(error: unknown): error is InvalidMessageError {
    return CtxmemError.hasMarker(error, marker);
  }
}

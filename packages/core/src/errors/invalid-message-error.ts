import { CtxmemError, type CtxmemErrorOptions } from './ctxmem-error.js';

/** A message or message array is malformed (unknown role, dangling tool call, bad content). */
export class InvalidMessageError extends CtxmemError {
  static override readonly errorName = 'CtxmemInvalidMessageError';
  /** Where in the input the problem is, for example `messages[3].content[0]`. */
  readonly path: string;

  constructor({ path, ...options }: CtxmemErrorOptions & { path: string }) {
    super(options);
    this.path = path;
  }

  static override isInstance(error: unknown): error is InvalidMessageError {
    return CtxmemError.hasMarker(error, InvalidMessageError.errorName);
  }
}

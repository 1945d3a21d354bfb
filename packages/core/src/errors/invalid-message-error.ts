import { CtxmemError } from './ctxmem-error.js';

/** A message or message array is malformed (unknown role, dangling tool call, bad content). */
export class InvalidMessageError extends CtxmemError<{ path: string }> {
  static override readonly errorName = 'CtxmemInvalidMessageError';
  /** Where in the input the problem is, for example `messages[3].content[0]`. */
  declare readonly path: string;

  static override readonly isInstance = CtxmemError.markerGuard<InvalidMessageError>(this);
}

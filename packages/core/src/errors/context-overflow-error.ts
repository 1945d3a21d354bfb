import { CtxmemError, type CtxmemErrorOptions } from './ctxmem-error.js';

/** One request the provider rejected as too long, in ctxmem's count and, when its error said, its own. */
export interface ContextOverflowAttempt {
  /**
   * ctxmem's count of the request's input (messages, tool definitions and the tokens reserved
   * around them), when ctxmem prepared it.
   */
  countedTokens?: number;
  /** The provider's count of the input, when its error said. */
  providerTokens?: number;
  /** The provider's limit, when its error said. */
  limitTokens?: number;
  /** The output the request asked for, when the provider's error said. */
  outputTokens?: number;
}

/**
 * The provider rejected a request as too long for the model's context window ("prompt is too
 * long", `context_length_exceeded`, "The input token count … exceeds the maximum …"). ctxmem
 * throws it when the one retry it makes after such a rejection is rejected too (both counts in
 * `attempts`), and the CLI's model call throws it for the summarizer to recognize. The fields are
 * those of the last rejection; the provider's error is the `cause`.
 */
export class ContextOverflowError extends CtxmemError<
  ContextOverflowAttempt & { attempts: ContextOverflowAttempt[] }
> {
  static override readonly errorName = 'CtxmemContextOverflowError';
  declare readonly countedTokens: number | undefined;
  declare readonly providerTokens: number | undefined;
  declare readonly limitTokens: number | undefined;
  declare readonly outputTokens: number | undefined;
  /** Every rejected attempt of the call, oldest first: one, or two after ctxmem's retry. */
  declare readonly attempts: ContextOverflowAttempt[];

  constructor(
    given: CtxmemErrorOptions &
      ContextOverflowAttempt & {
        /** @default the one attempt the other fields describe */
        attempts?: ContextOverflowAttempt[];
      },
  ) {
    // Building an error must not fail: see CtxmemError.
    const { attempts, ...options } = given ?? ({} as typeof given);
    const { message: _message, cause: _cause, ...last } = options;
    super({ ...options, attempts: attempts ?? [last] });
  }

  static override readonly isInstance = CtxmemError.markerGuard<ContextOverflowError>(this);
}

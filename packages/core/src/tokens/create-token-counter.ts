import type { TokenCounter } from '../contracts/index.js';
import { InvalidArgumentError } from '../errors/index.js';
import { requireOptions } from '../validation/index.js';
import { loadBpeRanks, TOKEN_ENCODING_NAMES, type TokenEncodingName } from './bpe-ranks.js';
import { buildCounter, type MessageCountOptions } from './build-counter.js';
import { createBpeTextCounter } from './count-bpe.js';
import { encodingForModel } from './encoding-for-model.js';
import { textTokenFloor } from './token-floor.js';

export interface TokenCounterOptions extends MessageCountOptions {
  /**
   * The model the prompt is for; picks the encoding (see `encodingForModel`). Models that are not
   * OpenAI's get `o200k_base`.
   * @default undefined (o200k_base)
   */
  model?: string;
  /**
   * The tiktoken encoding; wins over `model`.
   * @default encodingForModel(model), or 'o200k_base' without a model
   */
  encoding?: TokenEncodingName;
  /**
   * Counts the tokens of a plain string in place of the built-in BPE, for a provider's own
   * tokenizer; message accounting and caching stay the same. Must be deterministic.
   * @default the tiktoken BPE of `encoding`
   */
  countText?: (text: string) => number;
  /**
   * Every text count of the tiktoken encoding is multiplied by this and rounded up: a safety
   * margin for a model whose own tokenizer is not public (see `UNKNOWN_TOKENIZER_MARGIN`). The
   * counter's name says so (`tiktoken:o200k_base×1.2`). Not used with `countText`.
   * @default 1
   */
  margin?: number;
}

function resolveEncoding(model: string | undefined, encoding: unknown): TokenEncodingName {
  if (encoding === undefined) return model === undefined ? 'o200k_base' : encodingForModel(model);
  if (!TOKEN_ENCODING_NAMES.includes(encoding as TokenEncodingName)) {
    throw new InvalidArgumentError({
      message: `encoding must be one of ${TOKEN_ENCODING_NAMES.join(', ')}, got ${String(encoding)}`,
      argument: 'encoding',
    });
  }
  return encoding as TokenEncodingName;
}

function checkedTextCounter(countText: unknown): (text: string) => number {
  if (typeof countText !== 'function') {
    throw new InvalidArgumentError({
      message: 'countText must be a function',
      argument: 'countText',
    });
  }
  return (text) => {
    const count: unknown = countText(text);
    // A NaN or negative count would silently break every budget computed from it.
    if (typeof count !== 'number' || !Number.isFinite(count) || count < 0) {
      throw new InvalidArgumentError({
        message: `countText returned ${String(count)}; expected a non-negative finite number`,
        argument: 'countText',
      });
    }
    return count;
  };
}

function checkMargin(margin: unknown): number {
  if (typeof margin !== 'number' || !Number.isFinite(margin) || margin < 1) {
    throw new InvalidArgumentError({
      message: `margin must be a finite number ≥ 1, got ${String(margin)}`,
      argument: 'margin',
    });
  }
  return margin;
}

/**
 * The default token counter: tiktoken's BPE (`o200k_base` or `cl100k_base`, from js-tiktoken's
 * rank files) with exact counts, linear-time merging on pathological text (long CJK runs, base64,
 * runs of one character) and per-message caches, so recounting a history that grew by one
 * message costs about that one message.
 *
 * The rank file is loaded on the first count and shared, read-only, by every counter in the
 * process; the cache of piece counts belongs to each counter. The counter also has a floor (see
 * `textTokenFloor`), so that `boundedCounter` and `compact` count a payload far over the budget in
 * one pass over its characters instead of running BPE over it.
 */
export function createTokenCounter(options: TokenCounterOptions = {}): TokenCounter {
  const {
    model,
    encoding,
    countText,
    margin = 1,
    ...messageOptions
  } = requireOptions(options, 'createTokenCounter');
  if (countText !== undefined) {
    return buildCounter('custom', checkedTextCounter(countText), messageOptions);
  }
  const name = resolveEncoding(model, encoding);
  const factor = checkMargin(margin);
  let countBpe: ((text: string) => number) | undefined;
  const exact = (text: string) => {
    countBpe ??= createBpeTextCounter(loadBpeRanks(name));
    return countBpe(text);
  };
  const floor = (text: string) => textTokenFloor(text, name);
  if (factor === 1) return buildCounter(`tiktoken:${name}`, exact, messageOptions, floor);
  // ceil(floor × margin) ≤ ceil(exact × margin): the floor stays a lower bound.
  return buildCounter(
    `tiktoken:${name}×${factor}`,
    (text) => Math.ceil(exact(text) * factor),
    messageOptions,
    (text) => Math.ceil(floor(text) * factor),
  );
}

import type { TokenCounter } from '../contracts/index.js';
import { InvalidArgumentError } from '../errors/index.js';
import { loadBpeRanks, TOKEN_ENCODING_NAMES, type TokenEncodingName } from './bpe-ranks.js';
import { buildCounter, type MessageCountOptions } from './build-counter.js';
import { createBpeTextCounter } from './count-bpe.js';
import { encodingForModel } from './encoding-for-model.js';

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

/**
 * The default token counter: tiktoken's BPE (`o200k_base` or `cl100k_base`, from js-tiktoken's
 * rank files) with exact counts, linear-time merging on pathological text (long CJK runs, base64,
 * runs of one character) and per-message caches, so recounting a history that grew by one
 * message costs about that one message.
 *
 * The rank file is loaded on the first count and shared, read-only, by every counter in the
 * process; the cache of piece counts belongs to each counter.
 */
export function createTokenCounter(options: TokenCounterOptions = {}): TokenCounter {
  const { model, encoding, countText, ...messageOptions } = options;
  if (countText !== undefined) {
    return buildCounter('custom', checkedTextCounter(countText), messageOptions);
  }
  const name = resolveEncoding(model, encoding);
  let countBpe: ((text: string) => number) | undefined;
  return buildCounter(
    `tiktoken:${name}`,
    (text) => {
      countBpe ??= createBpeTextCounter(loadBpeRanks(name));
      return countBpe(text);
    },
    messageOptions,
  );
}

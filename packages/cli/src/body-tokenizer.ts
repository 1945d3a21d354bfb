import type { TokenCounter, TokenEncodingName } from '@ctxmem/core';
import { defaultCountRatio, InvalidArgumentError } from '@ctxmem/core';
import { TOKEN_ENCODING_NAMES } from '@ctxmem/core/adapter-kit';
import { parseChoice } from './arguments.js';
import type { CliDependencies } from './dependencies.js';

export interface TokenizerChoice {
  /** What `createTokenCounter` is given. */
  model?: string;
  encoding?: TokenEncodingName;
  /** Factor applied to every text count (1: exact tiktoken counts). */
  margin: number;
}

export interface ChooseTokenizerOptions {
  /** The request body's `model` field, when it has one. */
  bodyModel?: string | undefined;
  /** `--model`, the summarizer: counts with its tokenizer only when the body names no model. */
  summarizerModel?: string | undefined;
  /** `--encoding`: wins over both models. */
  encoding?: TokenEncodingName | undefined;
  /** `--margin`. @default core's `defaultCountRatio(model)`: 1.2 for a model without a public tokenizer, else 1 */
  margin?: number | undefined;
}

/**
 * Picks the tokenizer a body is counted with: `--encoding` when given, else the body's own `model`
 * (core's `encodingForModel`: `cl100k_base` for GPT-4 and GPT-3.5, `o200k_base` for everything
 * else), else the summarizer's `--model`, else `o200k_base`. The margin is core's count ratio for
 * the model before any provider report (`defaultCountRatio`: 1.2 for a model that is not
 * OpenAI's, the same rule the context manager budgets with) unless `--margin` says otherwise.
 */
export function chooseTokenizer({
  bodyModel,
  summarizerModel,
  encoding,
  margin,
}: ChooseTokenizerOptions): TokenizerChoice {
  const model = bodyModel ?? summarizerModel;
  const defaultMargin = defaultCountRatio(model);
  return {
    ...(encoding !== undefined ? { encoding } : model !== undefined ? { model } : {}),
    margin: margin ?? defaultMargin,
  };
}

/** The counter for a choice; with a margin above 1 its counts are scaled up and its name says so. */
export function createBodyCounter(
  choice: TokenizerChoice,
  dependencies: Pick<CliDependencies, 'createTokenCounter'>,
): TokenCounter {
  const { margin, ...options } = choice;
  const exact = dependencies.createTokenCounter(options);
  if (margin === 1) return exact;
  const scaled = dependencies.createTokenCounter({
    countText: (text) => Math.ceil(exact.countText(text) * margin),
  });
  // The counter's methods are closures, so renaming a copy is safe.
  return { ...scaled, name: `${exact.name}×${margin}` };
}

/** `--encoding`: one of `TOKEN_ENCODING_NAMES`. */
export function parseEncoding(value: string | boolean | undefined): TokenEncodingName {
  return parseChoice(value, '--encoding', TOKEN_ENCODING_NAMES);
}

/** `--margin`: a factor from 1 to 3 (`1.2` = count 20% more). */
export function parseMargin(value: string | boolean | undefined): number {
  const text = String(value ?? '').trim();
  const parsed = /^\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
  if (!(parsed >= 1 && parsed <= 3)) {
    throw new InvalidArgumentError({
      message: `--margin must be a number from 1 to 3 (1.2 counts 20% more), got "${text}"`,
      argument: '--margin',
    });
  }
  return parsed;
}

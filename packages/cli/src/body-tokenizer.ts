import type { TokenCounter, TokenEncodingName } from '@ctxmem/core';
import { InvalidArgumentError } from '@ctxmem/core';
import type { CliDependencies } from './dependencies.js';

/** The encodings `--encoding` accepts (core's tiktoken rank files). */
export const ENCODING_NAMES: readonly TokenEncodingName[] = ['o200k_base', 'cl100k_base'];

/**
 * Counts are multiplied by this for a model whose tokenizer is not public (Claude, Gemini, Llama…),
 * so that a body compacted to the budget with `o200k_base` still fits when the provider's own
 * tokenizer cuts the text into more pieces. It is a margin, not a measurement: the same factor as
 * core's `SAFETY_MARGIN` for summarizer prompts. `--margin 1` turns it off.
 */
export const UNKNOWN_TOKENIZER_MARGIN = 1.2;

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
  /** `--margin`. @default 1.2 for a model without a public tokenizer, else 1 */
  margin?: number | undefined;
}

/**
 * Picks the tokenizer a body is counted with: `--encoding` when given, else the body's own `model`
 * (core's `encodingForModel`: `cl100k_base` for GPT-4 and GPT-3.5, `o200k_base` for everything
 * else), else the summarizer's `--model`, else `o200k_base`. A model that is not OpenAI's gets the
 * `UNKNOWN_TOKENIZER_MARGIN` unless `--margin` says otherwise.
 */
export function chooseTokenizer({
  bodyModel,
  summarizerModel,
  encoding,
  margin,
}: ChooseTokenizerOptions): TokenizerChoice {
  const model = bodyModel ?? summarizerModel;
  const defaultMargin =
    model !== undefined && !hasPublicTokenizer(model) ? UNKNOWN_TOKENIZER_MARGIN : 1;
  return {
    ...(encoding !== undefined ? { encoding } : model !== undefined ? { model } : {}),
    margin: margin ?? defaultMargin,
  };
}

/**
 * Whether a model id names an OpenAI model, whose tiktoken encoding is public and exact. Provider
 * prefixes (`openai/gpt-4o`, `azure:gpt-4`) and fine-tune ids (`ft:gpt-4o-mini:org::id`) count.
 */
export function hasPublicTokenizer(model: string): boolean {
  let name = model.trim().toLowerCase();
  if (name.startsWith('ft:')) name = name.slice(3);
  name = name.slice(name.lastIndexOf('/') + 1);
  if (/^[a-z-]+:/.test(name) && !/^(gpt|o\d|text-|chatgpt)/.test(name)) {
    name = name.slice(name.indexOf(':') + 1);
  }
  return /^(gpt-|chatgpt-|text-embedding-|o\d+(-|$))/.test(name);
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

/** `--encoding`: one of `ENCODING_NAMES`. */
export function parseEncoding(value: string | boolean | undefined): TokenEncodingName {
  const text = String(value ?? '').trim();
  if (!(ENCODING_NAMES as readonly string[]).includes(text)) {
    throw new InvalidArgumentError({
      message: `--encoding must be one of ${ENCODING_NAMES.join(', ')}, got "${text}"`,
      argument: '--encoding',
    });
  }
  return text as TokenEncodingName;
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

import { InvalidArgumentError } from '../errors/index.js';
import type { TokenEncodingName } from './bpe-ranks.js';

const O200K_PREFIXES = ['gpt-4o', 'chatgpt-4o', 'gpt-4.1', 'gpt-4.5', 'gpt-5', 'gpt-oss'];
const CL100K_PREFIXES = ['gpt-4', 'gpt-3.5', 'gpt-35', 'text-embedding-'];

/**
 * The tiktoken encoding for a model name. OpenAI's GPT-4o family, GPT-4.1, GPT-5 and the o-series
 * use `o200k_base`; GPT-4, GPT-3.5 and the embedding models use `cl100k_base`. Every other model
 * (Claude, Gemini, Llama, Mistral…) gets `o200k_base`: its tokenizer is unknown here, and the
 * larger modern vocabulary is the closer approximation.
 *
 * Provider prefixes (`openai/gpt-4o`, `azure:gpt-4`) and fine-tune ids (`ft:gpt-3.5-turbo:org::id`)
 * are understood.
 */
export function encodingForModel(model: string): TokenEncodingName {
  if (typeof model !== 'string') {
    throw new InvalidArgumentError({
      message: `model must be a string, got ${typeof model}`,
      argument: 'model',
    });
  }
  const name = modelName(model);
  if (O200K_PREFIXES.some((prefix) => name.startsWith(prefix))) return 'o200k_base';
  if (/^o\d+(-|$)/.test(name)) return 'o200k_base';
  if (CL100K_PREFIXES.some((prefix) => name.startsWith(prefix))) return 'cl100k_base';
  return 'o200k_base';
}

/**
 * A model id without provider prefix (`openai/gpt-4o`, `azure:gpt-4`) or fine-tune wrapper
 * (`ft:gpt-4o-mini:org::id`), lower-cased.
 */
function modelName(model: string): string {
  let name = model.trim().toLowerCase();
  if (name.startsWith('ft:')) name = name.slice(3);
  name = name.slice(name.lastIndexOf('/') + 1);
  // `azure:gpt-4`, but not the `:org::id` tail of a fine-tune id, which comes after the model.
  const colon = name.indexOf(':');
  if (colon !== -1 && !/^(gpt|o\d|text-|chatgpt)/.test(name)) name = name.slice(colon + 1);
  return name;
}

/**
 * Whether a model id names an OpenAI model, whose tiktoken encoding is public, so counts with
 * `encodingForModel` are exact. Prefixes and fine-tune ids are understood as there.
 */
export function hasPublicTokenizer(model: string): boolean {
  return /^(gpt-|chatgpt-|text-embedding-|o\d+(-|$))/.test(modelName(model));
}

/**
 * Counts are multiplied by this for a model whose tokenizer is not public (Claude, Gemini, Llama…),
 * so that a prompt counted with `o200k_base` still fits when the provider's own tokenizer cuts the
 * text into more pieces. A margin, not a measurement.
 */
export const UNKNOWN_TOKENIZER_MARGIN = 1.2;

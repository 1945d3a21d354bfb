/**
 * How a fake provider counts input tokens. None of the providers faked here publishes its
 * tokenizer in a form ctxmem uses (Claude and Gemini publish none; OpenAI's is o200k_base, which
 * is ctxmem's own default and would make the check pointless), so each server counts "as that
 * provider might": cl100k_base (a different vocabulary from ctxmem's o200k_base), scaled, with
 * extra weight on what tokenizers split finely (JSON and code punctuation, CJK characters) and
 * framing tokens per message, content block and tool. The figures differ per provider; none is
 * the real tokenizer, all of them disagree with ctxmem's count the way real providers do.
 */
import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base';

export interface ProviderTokenizerSettings {
  /** Multiplies the cl100k_base count of every text. */
  scale: number;
  /** Extra tokens per JSON or code punctuation character (`{}[]":,;()<>=`). */
  punctuationWeight: number;
  /** Extra tokens per CJK character. */
  cjkWeight: number;
  /** Framing tokens per message (role, separators). */
  perMessage: number;
  /** Framing tokens per content block or part. */
  perBlock: number;
  /** Framing tokens per tool definition, beyond the JSON of its name, description and schema. */
  perTool: number;
  /** Fixed tokens of every request (the provider's own preamble). */
  perRequest: number;
}

export interface ProviderTokenizer {
  readonly settings: ProviderTokenizerSettings;
  /** Tokens of one text, without framing. */
  text(value: string): number;
  /** Tokens of a JSON value, as its compact JSON text. */
  json(value: unknown): number;
}

const PUNCTUATION = /[{}[\]":,;()<>=]/g;
const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uff00-\uffef]/g;

export function createProviderTokenizer(settings: ProviderTokenizerSettings): ProviderTokenizer {
  // Histories repeat from one request to the next: count each distinct text once.
  const cache = new Map<string, number>();
  const text = (value: string): number => {
    const cached = cache.get(value);
    if (cached !== undefined) return cached;
    const punctuation = value.match(PUNCTUATION)?.length ?? 0;
    const cjk = value.match(CJK)?.length ?? 0;
    const tokens = Math.ceil(
      countTokens(value) * settings.scale +
        punctuation * settings.punctuationWeight +
        cjk * settings.cjkWeight,
    );
    if (cache.size > 50_000) cache.clear();
    cache.set(value, tokens);
    return tokens;
  };
  return {
    settings,
    text,
    json: (value) => text(JSON.stringify(value) ?? 'null'),
  };
}

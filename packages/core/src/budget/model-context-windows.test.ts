import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../errors/index.js';
import { MODEL_CONTEXT_WINDOWS, resolveContextWindow } from './model-context-windows.js';

describe('resolveContextWindow', () => {
  it.each([
    ['gpt-4o', 128_000],
    ['gpt-4o-mini', 128_000],
    ['gpt-4o-2024-08-06', 128_000],
    ['gpt-4.1', 1_047_576],
    ['gpt-4.1-mini-2025-04-14', 1_047_576],
    ['gpt-4-1106-preview', 128_000],
    ['gpt-4-turbo', 128_000],
    ['gpt-4', 8_192],
    ['gpt-5', 400_000],
    ['gpt-5-mini', 400_000],
    ['gpt-3.5-turbo-0125', 16_385],
    ['o1', 200_000],
    ['o1-mini', 128_000],
    ['o3-mini', 200_000],
    ['o4-mini', 200_000],
    ['claude-3-5-sonnet-20241022', 200_000],
    ['claude-3.5-sonnet', 200_000],
    ['claude-3-haiku-20240307', 200_000],
    ['claude-sonnet-4-20250514', 200_000],
    ['claude-opus-4-1', 200_000],
    ['claude-haiku-4-5', 200_000],
    ['gemini-1.5-pro-002', 2_097_152],
    ['gemini-2.0-flash', 1_048_576],
    ['gemini-2.5-pro', 1_048_576],
    ['gemini-2.5-flash-lite', 1_048_576],
    ['llama-3.1-8b-instruct', 131_072],
    ['llama3.1:8b', 131_072],
    ['llama3', 8_192],
    ['qwen2.5-72b-instruct', 32_768],
    ['qwen3-coder', 262_144],
    ['deepseek-chat', 65_536],
    ['deepseek-r1', 131_072],
    ['mistral-large-latest', 131_072],
    ['mixtral-8x7b-instruct', 32_768],
  ])('knows %s', (modelId, window) => {
    expect(resolveContextWindow(modelId)).toBe(window);
  });

  it.each([
    ['openai/gpt-4o', 128_000],
    ['anthropic:claude-3-7-sonnet-latest', 200_000],
    ['anthropic/claude-3.5-sonnet', 200_000],
    ['models/gemini-2.5-pro', 1_048_576],
    ['us.anthropic.claude-3-5-sonnet-20240620-v1:0', 200_000],
    ['meta-llama/Meta-Llama-3.1-70B-Instruct', 131_072],
    ['meta.llama3-1-70b-instruct-v1:0', 131_072],
    ['Qwen/Qwen2.5-7B-Instruct', 32_768],
    ['qwen/qwen-2.5-72b-instruct', 32_768],
    ['ollama:mixtral:latest', 32_768],
    ['  GPT-4o  ', 128_000],
  ])('strips the provider prefix of %s', (modelId, window) => {
    expect(resolveContextWindow(modelId)).toBe(window);
  });

  it('returns undefined for unknown models instead of guessing', () => {
    expect(resolveContextWindow('my-finetune')).toBeUndefined();
    expect(resolveContextWindow('')).toBeUndefined();
    // A key must end at a word boundary: `gpt-4` is not a prefix match for `gpt-40`.
    expect(resolveContextWindow('gpt-40')).toBeUndefined();
  });

  it('lets overrides win and uses the same prefix matching for them', () => {
    expect(resolveContextWindow('gpt-4o-2024-08-06', { 'gpt-4o': 64_000 })).toBe(64_000);
    expect(resolveContextWindow('acme/my-model-v2', { 'my-model': 32_000 })).toBe(32_000);
    expect(resolveContextWindow('gpt-4o', { 'my-model': 32_000 })).toBe(128_000);
  });

  it('rejects overrides that are not positive integers', () => {
    for (const window of [0, -1, 1.5, Number.NaN]) {
      expect(() => resolveContextWindow('gpt-4o', { x: window })).toThrowError(
        expect.objectContaining({ argument: 'overrides' }),
      );
    }
    try {
      resolveContextWindow('gpt-4o', { x: 0 });
    } catch (error) {
      expect(InvalidArgumentError.isInstance(error)).toBe(true);
    }
  });

  it('holds only positive integer windows', () => {
    for (const window of Object.values(MODEL_CONTEXT_WINDOWS)) {
      expect(Number.isInteger(window) && window > 0).toBe(true);
    }
  });
});

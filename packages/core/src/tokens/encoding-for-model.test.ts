import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../errors/index.js';
import { encodingForModel, hasPublicTokenizer } from './index.js';

describe('encodingForModel', () => {
  it.each([
    'gpt-4o',
    'gpt-4o-mini-2024-07-18',
    'chatgpt-4o-latest',
    'gpt-4.1-nano',
    'gpt-4.5-preview',
    'gpt-5',
    'gpt-5-mini',
    'o1',
    'o1-mini',
    'o3-2025-04-16',
    'o4-mini',
    'gpt-oss-120b',
    'openai/gpt-4o',
    'ft:gpt-4o-mini-2024-07-18:acme::9abc',
    'GPT-4O',
  ])('maps %s to o200k_base', (model) => {
    expect(encodingForModel(model)).toBe('o200k_base');
  });

  it.each([
    'gpt-4',
    'gpt-4-0613',
    'gpt-4-turbo',
    'gpt-4-32k',
    'gpt-3.5-turbo',
    'gpt-35-turbo',
    'text-embedding-3-small',
    'text-embedding-ada-002',
    'openai/gpt-4',
    'azure:gpt-3.5-turbo',
    'ft:gpt-3.5-turbo-0613:acme::8xyz',
  ])('maps %s to cl100k_base', (model) => {
    expect(encodingForModel(model)).toBe('cl100k_base');
  });

  it.each([
    'claude-sonnet-4-5',
    'anthropic/claude-3-5-haiku',
    'gemini-2.5-pro',
    'llama-3.1-70b',
    'mistral-large',
    'omni-model',
    '',
  ])('falls back to o200k_base for %s', (model) => {
    expect(encodingForModel(model)).toBe('o200k_base');
  });

  it('rejects a non-string model', () => {
    let error: unknown;
    try {
      encodingForModel(4 as unknown as string);
    } catch (caught) {
      error = caught;
    }
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
  });

  it('knows which model ids have a public tokenizer', () => {
    for (const model of [
      'gpt-4o',
      'openai/gpt-4.1',
      'azure:gpt-4',
      'ft:gpt-4o-mini:org::x',
      'o3',
    ]) {
      expect(hasPublicTokenizer(model), model).toBe(true);
    }
    for (const model of [
      'claude-opus-4',
      'anthropic/claude-3-5-haiku',
      'gemini-2.5-pro',
      'llama3',
    ]) {
      expect(hasPublicTokenizer(model), model).toBe(false);
    }
  });
});

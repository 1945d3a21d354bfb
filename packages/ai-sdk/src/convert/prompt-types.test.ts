import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import type { LanguageModelMiddleware as LanguageModelMiddlewareV3 } from 'ai-v6';
import { describe, expectTypeOf, it } from 'vitest';
import type { V3Prompt, V4Prompt } from './index.js';

type LanguageModelV3Prompt = Parameters<
  NonNullable<LanguageModelMiddlewareV3['transformParams']>
>[0]['params']['prompt'];

describe('prompt types', () => {
  it('match the AI SDK prompt types both ways', () => {
    expectTypeOf<LanguageModelV4Prompt>().toExtend<V4Prompt>();
    expectTypeOf<V4Prompt>().toExtend<LanguageModelV4Prompt>();
    expectTypeOf<LanguageModelV3Prompt>().toExtend<V3Prompt>();
    expectTypeOf<V3Prompt>().toExtend<LanguageModelV3Prompt>();
  });
});

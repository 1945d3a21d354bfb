/**
 * Test support (not part of the package): chat models of the real provider packages pointed at
 * the fake provider servers (`test/providers/`), and a `createAgent` research agent on one of
 * them with ctxmem's agent middleware and a `lookup` tool whose results are long enough to force
 * compaction.
 */
import { ChatAnthropic } from '@langchain/anthropic';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { tool } from '@langchain/core/tools';
import { ChatGoogleGenerativeAI } from '@langchain/google-genai';
import { createAgent } from 'langchain';
import { z } from 'zod';
import { contextMemoryMiddleware } from './agent/index.js';
import { words } from './langchain.test-support.js';

interface FakeServerModel {
  /** The fake server's origin. */
  origin: string;
  streaming?: boolean;
}

/** `@langchain/anthropic`'s `ChatAnthropic`, thinking on (`anthropicApiUrl` is the origin). */
export function createAnthropicChatModel({ origin, streaming = false }: FakeServerModel) {
  return new ChatAnthropic({
    model: 'claude-sonnet-4-5',
    apiKey: 'test',
    anthropicApiUrl: origin,
    maxRetries: 0,
    maxTokens: 2_000,
    streaming,
    thinking: { type: 'enabled', budget_tokens: 1_024 },
  });
}

/**
 * `@langchain/google-genai`'s `ChatGoogleGenerativeAI` (`gemini-3-pro-preview`, thinking on);
 * `baseUrl` is the origin: the client adds `/v1beta/models/...`.
 */
export function createGeminiChatModel({ origin, streaming = false }: FakeServerModel) {
  return new ChatGoogleGenerativeAI({
    model: 'gemini-3-pro-preview',
    apiKey: 'test',
    baseUrl: origin,
    maxRetries: 0,
    maxOutputTokens: 2_000,
    streaming,
    thinkingConfig: { includeThoughts: true },
  });
}

/** A `lookup` tool answering with `resultWords` words. */
export function createLookupTool(resultWords: number) {
  return tool(
    async ({ query }: { query: string }) =>
      JSON.stringify({ query, rows: words(query.length * 7919, resultWords).split(' ') }),
    {
      name: 'lookup',
      description: 'Looks a record up.',
      schema: z.object({ query: z.string() }),
    },
  );
}

export function createResearchAgent({
  model,
  contextWindow,
  resultWords,
}: {
  model: BaseChatModel;
  contextWindow: number;
  /** Words in each lookup result. */
  resultWords: number;
}) {
  return createAgent({
    model,
    tools: [createLookupTool(resultWords)],
    systemPrompt: 'You are a research agent. Use the lookup tool, then answer briefly.',
    middleware: [contextMemoryMiddleware({ model, contextWindow })],
  });
}

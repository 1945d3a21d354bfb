/**
 * Test support (not part of the package): `@langchain/google-genai`'s `ChatGoogleGenerativeAI`
 * (`gemini-3-pro-preview`, thinking on) pointed at a fake Gemini server, and a `createAgent`
 * research agent on it with ctxmem's agent middleware and one `lookup` tool whose results are
 * long enough to force compaction.
 */
import { tool } from '@langchain/core/tools';
import { ChatGoogleGenerativeAI } from '@langchain/google-genai';
import { createAgent } from 'langchain';
import { z } from 'zod';
import { contextMemoryMiddleware } from './agent/index.js';
import { words } from './langchain.test-support.js';

export function createGeminiChatModel({
  origin,
  streaming = false,
}: {
  /** The fake server's origin (`baseUrl`: the client adds `/v1beta/models/...`). */
  origin: string;
  streaming?: boolean;
}) {
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

export function createGeminiResearchAgent({
  origin,
  contextWindow,
  resultWords,
  streaming = false,
}: {
  origin: string;
  contextWindow: number;
  /** Words in each lookup result. */
  resultWords: number;
  streaming?: boolean;
}) {
  const model = createGeminiChatModel({ origin, streaming });
  return createAgent({
    model,
    tools: [createLookupTool(resultWords)],
    systemPrompt: 'You are a research agent. Use the lookup tool, then answer briefly.',
    middleware: [contextMemoryMiddleware({ model, contextWindow })],
  });
}

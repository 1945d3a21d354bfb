/**
 * Test support (not part of the package): a `createAgent` research agent on `@langchain/anthropic`'s
 * `ChatAnthropic` (thinking on) pointed at a fake Anthropic server, with ctxmem's agent middleware
 * and one `lookup` tool whose results are long enough to force compaction.
 */
import { ChatAnthropic } from '@langchain/anthropic';
import { tool } from '@langchain/core/tools';
import { createAgent } from 'langchain';
import { z } from 'zod';
import { contextMemoryMiddleware } from './agent/index.js';
import { words } from './langchain.test-support.js';

export function createAnthropicResearchAgent({
  origin,
  contextWindow,
  resultWords,
  streaming = false,
}: {
  /** The fake server's origin (`anthropicApiUrl`). */
  origin: string;
  contextWindow: number;
  /** Words in each lookup result. */
  resultWords: number;
  streaming?: boolean;
}) {
  const model = new ChatAnthropic({
    model: 'claude-sonnet-4-5',
    apiKey: 'test',
    anthropicApiUrl: origin,
    maxRetries: 0,
    maxTokens: 2_000,
    streaming,
    thinking: { type: 'enabled', budget_tokens: 1_024 },
  });
  const lookup = tool(
    async ({ query }: { query: string }) =>
      JSON.stringify({ query, rows: words(query.length * 7919, resultWords).split(' ') }),
    {
      name: 'lookup',
      description: 'Looks a record up.',
      schema: z.object({ query: z.string() }),
    },
  );
  return createAgent({
    model,
    tools: [lookup],
    systemPrompt: 'You are a research agent. Use the lookup tool, then answer briefly.',
    middleware: [contextMemoryMiddleware({ model, contextWindow })],
  });
}

/*
 * Anthropic's own context management next to ctxmem, as an app turns it on through
 * `providerOptions.anthropic.contextManagement` (`@ai-sdk/anthropic` maps it to the request's
 * `context_management.edits`: `clear_tool_uses_20250919`, `compact_20260112`). The fake Anthropic
 * server applies the edits as the API documents them (context-editing and compaction docs):
 * `clear_tool_uses` clears the oldest tool results once the input crosses its trigger; `compact`
 * answers with a `compaction` block the app appends with the response messages, and the API then
 * reads the conversation from that block on. ctxmem and the provider together must send requests
 * the provider accepts, with the compaction block carried back unchanged.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  createMiddleware,
  describeError,
  lookupTool,
  type ProviderSetup,
  playConversation,
  startProvider,
} from './provider-wire.test-support.js';

let setup: ProviderSetup | undefined;
afterEach(async () => {
  await setup?.server.close();
  setup = undefined;
});

type Block = Record<string, unknown>;

function compactionBlocks(body: Record<string, unknown>): Block[] {
  return (body.messages as Array<{ content: unknown }>).flatMap((message) =>
    Array.isArray(message.content)
      ? (message.content as Block[]).filter((block) => block.type === 'compaction')
      : [],
  );
}

describe('Anthropic context management next to ctxmem', () => {
  it('server-side compaction: the newest compaction block is carried back in every request', async () => {
    setup = await startProvider('anthropic', { contextWindow: 60_000 });
    const strategies = new Set<string>();
    // ctxmem compacts past 80% of its window, the provider past its trigger (12,000 of its
    // tokens, counted from its newest compaction block on): both compact during the run.
    const middleware = createMiddleware(setup, {
      contextWindow: 24_000,
      onEvent: (event) => {
        if (event.type === 'strategy' && event.report.applied)
          strategies.add(event.report.strategy);
      },
    });
    const anthropic = setup.providerOptions.anthropic!;
    setup.providerOptions = {
      anthropic: {
        ...anthropic,
        contextManagement: {
          edits: [{ type: 'compact_20260112', trigger: { type: 'input_tokens', value: 12_000 } }],
        },
      },
    };
    const { outcomes } = await playConversation({
      setup,
      middleware,
      tools: lookupTool({ resultWords: 450 }),
      turns: 16,
      maxOutputTokens: 1_000,
      userText: (turn) => `Question ${turn}: look up record ${turn}.`,
    });
    expect(
      outcomes.filter((outcome) => outcome.error).map((outcome) => describeError(outcome.error)),
    ).toEqual([]);
    expect(setup.server.rejected().map((request) => request.rejection?.message)).toEqual([]);
    expect(strategies).toContain('summarize-rounds');
    // Every agent request after the provider compacted carries its newest compaction block
    // (unchanged: the server checks its signature), also after ctxmem evicted older rounds.
    const agentRequests = setup.server.requests.filter(
      (request) => !JSON.stringify(request.body.system ?? '').includes('rolling context summary'),
    );
    let newest: string | undefined;
    let issued = 0;
    for (const request of agentRequests) {
      if (newest !== undefined) {
        const carried = compactionBlocks(request.body).map((block) => block.signature);
        expect(carried, `request ${request.index}`).toContain(newest);
      }
      const block = (request.reply?.content as Block[] | undefined)?.find(
        (part) => part.type === 'compaction',
      );
      if (block) {
        newest = String(block.signature);
        issued++;
      }
    }
    expect(issued).toBeGreaterThan(0);
  });

  it('clear_tool_uses: the provider clears old tool results of the requests ctxmem sends', async () => {
    setup = await startProvider('anthropic', { contextWindow: 16_000 });
    const middleware = createMiddleware(setup, { contextWindow: 16_000 });
    const anthropic = setup.providerOptions.anthropic!;
    setup.providerOptions = {
      anthropic: {
        ...anthropic,
        contextManagement: {
          edits: [
            {
              type: 'clear_tool_uses_20250919',
              trigger: { type: 'input_tokens', value: 8_000 },
              keep: { type: 'tool_uses', value: 2 },
            },
          ],
        },
      },
    };
    const { outcomes } = await playConversation({
      setup,
      middleware,
      tools: lookupTool(),
      turns: 10,
      maxOutputTokens: 1_000,
      userText: (turn) => `Question ${turn}: look up record ${turn}.`,
    });
    expect(
      outcomes.filter((outcome) => outcome.error).map((outcome) => describeError(outcome.error)),
    ).toEqual([]);
    expect(setup.server.rejected().map((request) => request.rejection?.message)).toEqual([]);
    const edited = setup.server.requests.filter(
      (request) =>
        (request.body.context_management as { edits?: unknown[] } | undefined)?.edits?.length,
    );
    expect(edited.length).toBeGreaterThan(20);
    expect(setup.agent.counts.summaries).toBeGreaterThan(0);
  });
});

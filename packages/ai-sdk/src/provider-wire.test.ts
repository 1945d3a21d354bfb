/*
 * The middleware through the real provider packages (`@ai-sdk/anthropic`, `@ai-sdk/google`,
 * `@ai-sdk/openai` Responses) against fake servers that enforce each provider's documented
 * request rules (test/providers). Long tool loops, thinking or reasoning on, response messages
 * appended as the AI SDK docs show, compaction crossing many times: not one request may break a
 * provider rule, and the signed or encrypted reasoning must reach the provider where it needs it.
 * The provider's window is larger than ctxmem's here, so that what these tests see is rules;
 * `provider-turns.test.ts` holds the provider to the same window and counts the overflows.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { GeminiServer } from '../../../test/providers/index.js';
import {
  createMiddleware,
  describeError,
  lookupTool,
  PROVIDERS,
  type ProviderSetup,
  playConversation,
  startProvider,
} from './provider-wire.test-support.js';

const WINDOW = 16_000;

let setup: ProviderSetup | undefined;
afterEach(async () => {
  await setup?.server.close();
  setup = undefined;
});

type Block = Record<string, unknown>;

function anthropicThinkingRequests(setup: ProviderSetup): number {
  return setup.server.requests.filter((request) =>
    (request.body.messages as Array<{ content: unknown }>).some(
      (message) =>
        Array.isArray(message.content) &&
        (message.content as Block[]).some(
          (block) => block.type === 'thinking' && typeof block.signature === 'string',
        ),
    ),
  ).length;
}

function openaiReasoningReferences(setup: ProviderSetup): number {
  return setup.server.requests.filter((request) =>
    (request.body.input as Block[]).some(
      (item) => item.type === 'item_reference' && String(item.id).startsWith('rs_'),
    ),
  ).length;
}

describe('a streamed Anthropic answer in the history', () => {
  it('is accepted on the next call: its custom part is carried, not rejected', async () => {
    setup = await startProvider('anthropic', { contextWindow: WINDOW });
    const middleware = createMiddleware(setup, { contextWindow: WINDOW });
    const { outcomes, messages } = await playConversation({
      setup,
      middleware,
      tools: lookupTool({ resultWords: 50 }),
      turns: 3,
      mode: (turn) => (turn === 3 ? 'generate' : 'stream'),
      maxOutputTokens: 1_000,
      userText: (turn) => `Question ${turn}: look up record ${turn}.`,
    });
    // @ai-sdk/anthropic starts every streamed step with this part (AI SDK 7 `CustomPart`).
    expect(JSON.stringify(messages)).toContain('"kind":"anthropic.message_start"');
    expect(outcomes.map((outcome) => outcome.error && describeError(outcome.error))).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect(setup.server.rejected()).toEqual([]);
  });
});

describe.each(PROVIDERS)('the middleware on the wire: %s', (name) => {
  it('sends only requests the provider accepts over a long tool loop with compaction', async () => {
    setup = await startProvider(name, { contextWindow: WINDOW * 2 });
    const middleware = createMiddleware(setup, { contextWindow: WINDOW });
    const { outcomes } = await playConversation({
      setup,
      middleware,
      tools: lookupTool(),
      turns: 10,
      maxOutputTokens: 1_000,
      userText: (turn) => `Question ${turn}: look up record ${turn} and summarise it.`,
    });
    const failed = outcomes.filter((outcome) => outcome.error);
    expect(
      failed.map((outcome) => `turn ${outcome.turn}: ${describeError(outcome.error)}`),
    ).toEqual([]);
    expect(setup.server.rejected().map((request) => request.rejection?.message)).toEqual([]);
    // Both calls were made, compaction crossed (the summarizer ran), and tool loops ran.
    expect(outcomes.some((outcome) => outcome.mode === 'stream')).toBe(true);
    expect(setup.agent.counts.summaries).toBeGreaterThan(0);
    expect(setup.agent.counts.steps).toBeGreaterThanOrEqual(30);
    // The signed or encrypted reasoning reached the provider in the tool loops.
    if (name === 'anthropic') expect(anthropicThinkingRequests(setup)).toBeGreaterThan(15);
    if (name === 'gemini') expect((setup.server as GeminiServer).signatureSkips()).toEqual([]);
    if (name === 'openai-responses') expect(openaiReasoningReferences(setup)).toBeGreaterThan(15);
  });

  it('keeps signed and encrypted reasoning whole through a current round that needs compressing', async () => {
    // One turn of many long steps: the current round itself is over target, so ctxmem shortens
    // and offloads inside it. Reasoning the provider signed or encrypted must survive that.
    setup = await startProvider(name, {
      contextWindow: WINDOW * 2,
      agent: { toolSteps: 12, reasoningWords: 200, parallelEvery: 0 },
    });
    const strategies = new Set<string>();
    const middleware = createMiddleware(setup, {
      contextWindow: WINDOW,
      onEvent: (event) => {
        if (event.type === 'strategy' && event.report.applied)
          strategies.add(event.report.strategy);
      },
    });
    const { outcomes } = await playConversation({
      setup,
      middleware,
      tools: lookupTool({ resultWords: 900 }),
      turns: 2,
      maxSteps: 14,
      maxOutputTokens: 1_000,
      userText: (turn) => `Question ${turn}: check every record of batch ${turn}.`,
    });
    expect(
      outcomes.filter((outcome) => outcome.error).map((outcome) => describeError(outcome.error)),
    ).toEqual([]);
    expect(setup.server.rejected().map((request) => request.rejection?.message)).toEqual([]);
    expect([...strategies]).toContain('current-round');
  });
});

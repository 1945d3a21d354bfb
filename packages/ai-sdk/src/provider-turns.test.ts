/*
 * The check we keep (issue 24): 40 tool-using user turns per provider in a 16,000-token window,
 * through the real provider packages (`@ai-sdk/anthropic`, `@ai-sdk/google`, `@ai-sdk/openai`
 * Responses) with thinking or reasoning on, against fake servers that count tokens as those
 * providers might (not as o200k_base), enforce their documented rules and answer with their real
 * overflow errors. The provider's window is the window ctxmem is told: whatever ctxmem counts
 * low, the provider rejects. It must see no rule-break rejection, no user turn that fails, at most
 * 2 overflow rejections per provider in the whole run and none in its second half, and the
 * facts planted in early turns still in front of the model at the end.
 *
 * `CTXMEM_PROVIDER_CHECK_REPORT=1` prints the figures of each provider.
 */
import { afterEach, describe, expect, it } from 'vitest';
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
const TURNS = 40;
const FACTS = new Map([
  [1, 'FACT-1: the staging database listens on port 8443.'],
  [4, 'FACT-2: the release train leaves every Thursday at 14:00 UTC.'],
  [9, 'FACT-3: the on-call alias is ops-blue.'],
]);

let setup: ProviderSetup | undefined;
afterEach(async () => {
  await setup?.server.close();
  setup = undefined;
});

describe.each(PROVIDERS)('40 tool-using turns in a 16k window: %s', (name) => {
  it('no rejected rule, no failed turn, at most 2 overflows and none in the second half', async () => {
    setup = await startProvider(name, { contextWindow: WINDOW });
    const middleware = createMiddleware(setup, { contextWindow: WINDOW });
    const requestsBefore: number[] = [];
    const { outcomes } = await playConversation({
      setup,
      middleware,
      tools: lookupTool({ resultWords: 450 }),
      turns: TURNS,
      maxOutputTokens: 1_000,
      userText: (turn) => {
        requestsBefore[turn] = setup!.server.requests.length;
        const fact = FACTS.get(turn);
        return `Question ${turn}: look up record ${turn} and tell me what changed.${fact ? ` Remember this: ${fact}` : ''}`;
      },
    });
    const { server } = setup;
    const secondHalf = requestsBefore[TURNS / 2 + 1]!;
    const overflows = server.rejected('overflow');
    const agentRequests = server.requests.filter(
      (request) =>
        !JSON.stringify(request.body).includes('rolling context summary of a conversation'),
    );
    const last = agentRequests.filter((request) => !request.rejection).at(-1)!;
    const lastText = JSON.stringify(last.body);
    const figures = {
      provider: name,
      requests: server.requests.length,
      ruleRejections: server.rejected('rule').map((request) => request.rejection!.message),
      failedTurns: outcomes
        .filter((outcome) => outcome.error)
        .map(
          (outcome) => `turn ${outcome.turn} (${outcome.mode}): ${describeError(outcome.error)}`,
        ),
      overflows: overflows.length,
      overflowsInSecondHalf: overflows.filter((request) => request.index >= secondHalf).length,
      factsMissing: [...FACTS.values()].filter((fact) => !lastText.includes(fact)),
      largestInputTokens: Math.max(...server.requests.map((request) => request.inputTokens ?? 0)),
    };
    if (process.env.CTXMEM_PROVIDER_CHECK_REPORT) {
      console.log(
        JSON.stringify({
          ...figures,
          failedTurns: figures.failedTurns.length,
          firstFailures: figures.failedTurns.slice(0, 3),
          overflowTurns: overflows.map((request) =>
            requestsBefore.findLastIndex((start) => start <= request.index),
          ),
        }),
      );
    }
    expect(figures).toMatchObject({
      ruleRejections: [],
      failedTurns: [],
      overflowsInSecondHalf: 0,
      factsMissing: [],
    });
    expect(figures.overflows).toBeLessThanOrEqual(2);
  });
});

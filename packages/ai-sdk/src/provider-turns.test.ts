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
  keptCheckFigures,
  keptCheckQuestion,
  KEPT_CHECK_TURNS as TURNS,
  KEPT_CHECK_WINDOW as WINDOW,
} from '../../../test/providers/index.js';
import {
  createMiddleware,
  describeError,
  lookupTool,
  PROVIDERS,
  type ProviderSetup,
  playConversation,
  startProvider,
} from './provider-wire.test-support.js';

let setup: ProviderSetup | undefined;
afterEach(async () => {
  await setup?.server.close();
  setup = undefined;
});

describe.each(PROVIDERS)('40 tool-using turns in a 16k window: %s', (name) => {
  it('no rejected rule, no failed turn, at most 2 overflows and none in the second half', async () => {
    setup = await startProvider(name, { contextWindow: WINDOW });
    const { server } = setup;
    const middleware = createMiddleware(setup, { contextWindow: WINDOW });
    const requestsBefore: number[] = [];
    const { outcomes } = await playConversation({
      setup,
      middleware,
      tools: lookupTool({ resultWords: 450 }),
      turns: TURNS,
      maxOutputTokens: 1_000,
      userText: (turn) => {
        requestsBefore[turn] = server.requests.length;
        return keptCheckQuestion(turn);
      },
    });
    const figures = keptCheckFigures({
      server,
      requestsBefore,
      failedTurns: outcomes
        .filter((outcome) => outcome.error)
        .map(
          (outcome) => `turn ${outcome.turn} (${outcome.mode}): ${describeError(outcome.error)}`,
        ),
    });
    if (process.env.CTXMEM_PROVIDER_CHECK_REPORT) {
      console.log(
        JSON.stringify({
          provider: name,
          ...figures,
          failedTurns: figures.failedTurns.length,
          firstFailures: figures.failedTurns.slice(0, 3),
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

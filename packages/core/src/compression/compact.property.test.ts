import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message, Summarizer, TokenCounter } from '../contracts/index.js';
import { BudgetExceededError } from '../errors/index.js';
import { lastUserIndex } from '../messages/index.js';
import { createInMemoryOffloadStore } from '../offload/index.js';
import { createExtractiveSummarizer } from '../summarize/index.js';
import { arbitraryMessages } from '../test/arbitraries/index.js';
import { checkCompactionInvariants } from '../test/invariants.js';
import { createEstimateCounter, createTokenCounter } from '../tokens/index.js';
import { compact } from './compact.js';
import type { HistoryMode } from './pipeline.js';
import { createScriptedSummarizer } from './test-helpers.js';
import { deepFreeze } from './test-messages.js';

/** Histories with parallel tool calls, huge outputs, CJK, images, pastes and mid-history system notes. */
const historyOf = (options: { withOpaqueParts: boolean }) =>
  fc
    .tuple(
      arbitraryMessages({
        maxMessages: 40,
        withTools: true,
        withImages: true,
        withCjk: true,
        withHugeOutputs: true,
        ...options,
      }),
      fc.option(fc.nat(), { nil: undefined }),
      fc.option(fc.tuple(fc.nat(), fc.integer({ min: 6_000, max: 30_000 })), { nil: undefined }),
    )
    .map(([messages, systemAt, paste]) => {
      const result = [...messages];
      const newest = lastUserIndex(result);
      const userIndexes = result
        .map((message, index) => (message.role === 'user' && index < newest ? index : -1))
        .filter((index) => index > 0);
      if (systemAt !== undefined && userIndexes.length > 0) {
        const at = userIndexes[systemAt % userIndexes.length]!;
        result.splice(at, 0, {
          role: 'system',
          content: 'Note: the user switched to metric units.',
        });
      }
      const olderUsers = result
        .map((message, index) =>
          message.role === 'user' && index < lastUserIndex(result) ? index : -1,
        )
        .filter((index) => index >= 0);
      if (paste && olderUsers.length > 0) {
        const at = olderUsers[paste[0] % olderUsers.length]!;
        result[at] = {
          role: 'user',
          content: `Here is my log:\n${'日志 line ok\n'.repeat(paste[1] / 12)}`,
        };
      }
      return deepFreeze(result);
    });

const history = historyOf({ withOpaqueParts: false });

const scenarioOf = (messages: fc.Arbitrary<Message[]>) =>
  fc.record({
    messages,
    /** Budget as a share of the prompt's size (can be below what the prompt minimally needs). */
    budgetShare: fc.double({ min: 0.02, max: 1.2, noNaN: true }),
    targetShare: fc.double({ min: 0.3, max: 1, noNaN: true }),
    history: fc.constantFrom<HistoryMode>('compressed', 'recent-only', 'summary-only'),
    force: fc.boolean(),
    failingSummarizer: fc.boolean(),
  });
const scenario = scenarioOf(history);

function minimalTokens(messages: readonly Message[], counter: TokenCounter): number {
  const newest = lastUserIndex(messages);
  return counter.countMessages(
    messages.filter((message, index) => message.role === 'system' || index === newest),
  );
}

async function run(
  {
    messages,
    budgetShare,
    targetShare,
    history: mode,
    force,
    failingSummarizer,
  }: {
    messages: Message[];
    budgetShare: number;
    targetShare: number;
    history: HistoryMode;
    force: boolean;
    failingSummarizer: boolean;
  },
  counter: TokenCounter,
) {
  const total = counter.countMessages(messages);
  const budgetTokens = Math.max(1, Math.floor(total * budgetShare));
  const targetTokens = Math.max(1, Math.floor(budgetTokens * targetShare));
  const offloadStore = createInMemoryOffloadStore();
  const scope = { sessionId: 'property' };
  const summarizer: Summarizer = failingSummarizer
    ? createScriptedSummarizer({ fail: () => true })
    : createExtractiveSummarizer({ counter });
  const snapshot = structuredClone(messages);
  const options = {
    budgetTokens,
    targetTokens,
    counter,
    summarizer,
    offloadStore,
    scope,
    history: mode,
    force,
  };

  let result: Awaited<ReturnType<typeof compact>>;
  try {
    result = await compact(messages, options);
  } catch (error) {
    // Only allowed when the system messages and the newest user message alone are over budget.
    expect(BudgetExceededError.isInstance(error)).toBe(true);
    expect(minimalTokens(messages, counter)).toBeGreaterThan(budgetTokens);
    return;
  }
  expect(isDeepStrictEqual(messages, snapshot)).toBe(true);
  expect(checkCompactionInvariants(messages, result.messages, { budgetTokens, counter })).toEqual(
    [],
  );
  expect(JSON.stringify(result.messages)).not.toContain('scripted failure');

  // Every offloaded original is retrievable byte-identically.
  const ids = result.report.strategies.flatMap((report) => report.offloadIds ?? []);
  for (const id of ids) {
    const record = await offloadStore.get(scope, id);
    const original = record.message;
    if (!original.ctxmem) {
      expect(messages.some((message) => isDeepStrictEqual(message, original))).toBe(true);
    }
  }

  // Idempotence: a result at or under target comes back unchanged.
  if (result.report.tokensAfter <= targetTokens) {
    const again = await compact(result.messages, {
      ...options,
      force: false,
      ...(result.summary ? { previousSummary: result.summary } : {}),
    });
    expect(again.messages).toEqual(result.messages);
    expect(again.report.strategies).toEqual([]);
  }
}

describe('compact (properties)', () => {
  it('fits the budget and keeps every invariant (estimate counter)', async () => {
    const counter = createEstimateCounter();
    await fc.assert(
      fc.asyncProperty(scenario, (input) => run(input, counter)),
      { numRuns: 150 },
    );
  });

  it('keeps opaque parts whole and in order (signed reasoning, compactions, custom parts)', async () => {
    const counter = createEstimateCounter();
    await fc.assert(
      fc.asyncProperty(scenarioOf(historyOf({ withOpaqueParts: true })), (input) =>
        run(input, counter),
      ),
      { numRuns: 150 },
    );
  });

  it('fits the budget and keeps every invariant (tiktoken counter)', async () => {
    const counter = createTokenCounter();
    await fc.assert(
      fc.asyncProperty(scenario, (input) => run(input, counter)),
      { numRuns: 40 },
    );
  });
});

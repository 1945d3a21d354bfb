/**
 * `pnpm bench compact`: the compression pipeline. What `compact()` does to the example 54k-token
 * agent session at several context windows and in each history mode (tokens after, strategies
 * applied, offloads, time), and how its time grows with synthetic agent histories of 100 to 5,000
 * messages. No model: the extractive summarizer; counts with the tiktoken counter of the model.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { resolveBudget } from '../packages/core/src/budget/index.js';
import { compact, type HistoryMode } from '../packages/core/src/compression/index.js';
import type { Message, TokenCounter } from '../packages/core/src/contracts/index.js';
import { parseConversation } from '../packages/core/src/messages/index.js';
import { createInMemoryOffloadStore } from '../packages/core/src/offload/index.js';
import { createExtractiveSummarizer } from '../packages/core/src/summarize/index.js';
import { createTokenCounter } from '../packages/core/src/tokens/index.js';
import { syntheticHistory } from './large-inputs.js';
import type { BenchRun, BenchSection } from './types.js';

function median(values: readonly number[]): number {
  const sorted = [...values].sort((first, second) => first - second);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const milliseconds = (value: number) => Number(value.toFixed(value < 10 ? 2 : 1));

async function timeCompact(
  messages: readonly Message[],
  counter: TokenCounter,
  contextWindow: number,
  history: HistoryMode,
  repeats: number,
) {
  const budget = resolveBudget({ contextWindow });
  const durations: number[] = [];
  let result: Awaited<ReturnType<typeof compact>> | undefined;
  for (let repeat = 0; repeat < repeats; repeat++) {
    const started = performance.now();
    result = await compact(messages, {
      budgetTokens: budget.budgetTokens,
      targetTokens: budget.targetTokens,
      counter,
      summarizer: createExtractiveSummarizer({ counter }),
      offloadStore: createInMemoryOffloadStore(),
      history,
    });
    durations.push(performance.now() - started);
  }
  return { budget, result: result!, milliseconds: median(durations) };
}

function strategiesApplied(result: Awaited<ReturnType<typeof compact>>): string {
  const names = result.report.strategies
    .filter((report) => report.applied)
    .map((report) =>
      report.fallback?.from === 'budget-guard' ? `guard:${report.strategy}` : report.strategy,
    );
  return names.length > 0 ? names.join(' → ') : '(none)';
}

export const run: BenchRun = async ({ quick }) => {
  const sessionPath = fileURLToPath(
    new URL('../examples/conversations/agent-session.json', import.meta.url),
  );
  const parsed = parseConversation(JSON.parse(readFileSync(sessionPath, 'utf8')));
  const session = parsed.messages;
  const counter = createTokenCounter({ model: 'gpt-4o' });
  const sessionTokens = counter.countMessages(session);
  const repeats = quick ? 3 : 9;

  const windowRows: BenchSection['rows'] = [];
  for (const contextWindow of [65_536, 32_768, 16_384, 8_192]) {
    const {
      budget,
      result,
      milliseconds: time,
    } = await timeCompact(session, counter, contextWindow, 'compressed', repeats);
    windowRows.push({
      window: contextWindow,
      'tokens before': sessionTokens,
      'budget / target': `${budget.budgetTokens} / ${budget.targetTokens}`,
      'tokens after': result.report.tokensAfter,
      messages: `${session.length} → ${result.messages.length}`,
      strategies: strategiesApplied(result),
      offloaded: result.report.strategies.reduce(
        (sum, report) => sum + (report.offloadIds?.length ?? 0),
        0,
      ),
      'ms (median)': milliseconds(time),
    });
  }

  const modeRows: BenchSection['rows'] = [];
  for (const history of ['compressed', 'recent-only', 'summary-only'] as const) {
    const { result, milliseconds: time } = await timeCompact(
      session,
      counter,
      32_768,
      history,
      repeats,
    );
    modeRows.push({
      history,
      'tokens after': result.report.tokensAfter,
      messages: result.messages.length,
      strategies: strategiesApplied(result),
      'ms (median)': milliseconds(time),
    });
  }

  const scaleRows: BenchSection['rows'] = [];
  for (const messageCount of quick ? [100, 1_000] : [100, 1_000, 5_000]) {
    const history = syntheticHistory(messageCount, messageCount);
    const tokens = counter.countMessages(history);
    // A window the history overflows by about half, so every strategy has work to do.
    const contextWindow = Math.max(8_192, Math.round(tokens / 1.5));
    const { result, milliseconds: time } = await timeCompact(
      history,
      counter,
      contextWindow,
      'compressed',
      quick ? 1 : 3,
    );
    scaleRows.push({
      messages: messageCount,
      'tokens before': tokens,
      window: contextWindow,
      'tokens after': result.report.tokensAfter,
      'messages after': result.messages.length,
      strategies: strategiesApplied(result),
      'ms (median)': milliseconds(time),
    });
  }

  return [
    {
      title: 'compact(): the example agent session at several windows',
      rows: windowRows,
      notes: [
        `examples/conversations/agent-session.json (${session.length} messages), counted with ${counter.name}; budgets from resolveBudget defaults (reserve 10 % / 2,000, target 60 %).`,
        'Extractive summarizer (no model), in-memory offload store; the counter cache is warm after the first repeat, as in a running session. `guard:` marks last-resort steps of the budget guard.',
      ],
    },
    {
      title: 'compact(): history modes on the example session (32k window)',
      rows: modeRows,
    },
    {
      title: 'compact(): time against history length (synthetic agent histories)',
      rows: scaleRows,
      notes: [
        'Synthetic histories from a fixed seed: rounds of a request, 1–6 tool steps (30 % with 3 parallel calls, 10 % of results ~2,000 words) and an answer; window ≈ tokens / 1.5.',
      ],
    },
  ];
};

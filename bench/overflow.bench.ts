/**
 * `pnpm bench overflow`: a provider that counts 1.3 times what `o200k_base` counts, behind the AI
 * SDK middleware. A scripted tool-using agent (two lookups of about 450 words per user turn) runs
 * through `generateText` with a mock model that judges every request as the provider would: it
 * rejects a request whose count plus its output does not fit the window with Anthropic's 400
 * body (`prompt is too long: N tokens > M maximum`, as an `APICallError`), and otherwise answers
 * with its count as `usage.inputTokens`. Compared: ctxmem as shipped (a 1.2 prior for a model
 * without a public tokenizer, learned from usage and rejections, one retry per rejection), and
 * uncalibrated baselines that keep a fixed ratio (1, the middleware's count before this change;
 * 1.2, the CLI's flat margin) with the same one retry.
 */
import { performance } from 'node:perf_hooks';
import {
  generateText,
  jsonSchema,
  type ModelMessage,
  stepCountIs,
  tool,
  wrapLanguageModel,
} from '../packages/ai-sdk/node_modules/ai/dist/index.js';
import { MockLanguageModelV4 } from '../packages/ai-sdk/node_modules/ai/dist/test/index.js';
import { contextMemoryMiddleware } from '../packages/ai-sdk/src/index.js';
import { createScriptedAgent, lookupTool } from '../packages/ai-sdk/src/mock-agent.test-support.js';
import {
  createOverflowProvider,
  usageOf,
} from '../packages/ai-sdk/src/overflow-provider.test-support.js';
import type { CtxmemEvent } from '../packages/core/src/contracts/index.js';
import { ContextOverflowError } from '../packages/core/src/errors/index.js';
import { createExtractiveSummarizer } from '../packages/core/src/summarize/index.js';
import { fillerText } from '../packages/core/src/test/filler-text.js';
import { createTokenCounter } from '../packages/core/src/tokens/index.js';
import type { BenchRun, BenchSection } from './types.js';

const FACTOR = 1.3;
const OUTPUT = 1_000;
const MODEL = 'claude-sonnet-4-5';

interface Variant {
  name: string;
  calibration: false | { prior: number; learn: boolean } | undefined;
}

const VARIANTS: Variant[] = [
  { name: 'ctxmem: prior 1.2, learned', calibration: undefined },
  { name: 'learned from ratio 1 (no prior)', calibration: { prior: 1, learn: true } },
  { name: 'baseline: fixed 1.2 (the CLI margin)', calibration: { prior: 1.2, learn: false } },
  { name: 'baseline: fixed 1 (plain o200k_base)', calibration: false },
];

interface RunResult {
  modelCalls: number;
  rejections: number;
  lastRejection: number;
  failedTurns: number;
  ratio: number;
  /** Model calls made when the ratio took its final value. */
  settledAt: number;
  /** The provider's count of what was sent (plus the output), as a share of the window. */
  usedShares: number[];
  cpuMs: number;
}

/**
 * A history resumed from elsewhere (a restored session, a pasted log) that fills three quarters
 * of the window as ctxmem counts: under its trigger at ratio 1, over the provider's window at
 * 1.3.
 */
function resumedHistory(window: number): ModelMessage[] {
  const counter = createTokenCounter();
  const messages: ModelMessage[] = [];
  for (let round = 1; ; round++) {
    messages.push(
      { role: 'user', content: `Earlier question ${round}: ${fillerText(round, 60)}?` },
      { role: 'assistant', content: fillerText(round + 5_000, 220) },
    );
    const counted = counter.countMessages(
      messages.map((message) => ({
        role: message.role,
        content: String(message.content),
      })) as never,
    );
    if (counted >= 0.75 * window) return messages;
  }
}

async function runVariant(
  variant: Variant,
  turns: number,
  window: number,
  resumed: boolean,
): Promise<RunResult> {
  const counter = createTokenCounter();
  const provider = createOverflowProvider({ factor: FACTOR, contextWindow: window });
  const agent = createScriptedAgent({ toolStepsPerTurn: 2 });
  const model = new MockLanguageModelV4({
    modelId: MODEL,
    doGenerate: async (options) => {
      const inputTokens = provider.judge(options);
      return { ...(agent.respond(options.prompt) as object), usage: usageOf(inputTokens) } as never;
    },
  });
  const events: CtxmemEvent[] = [];
  const middleware = contextMemoryMiddleware({
    contextWindow: window,
    summarizer: createExtractiveSummarizer({ counter }),
    ...(variant.calibration === undefined ? {} : { calibration: variant.calibration }),
    onEvent: (event) => events.push(event),
  });
  const wrapped = wrapLanguageModel({ model, middleware });
  const lookup = lookupTool({ tool, jsonSchema });
  const messages: ModelMessage[] = resumed ? resumedHistory(window) : [];
  let failedTurns = 0;
  let ratio = Number.NaN;
  let settledAt = 0;
  const started = process.cpuUsage();
  for (let turn = 0; turn < turns; turn++) {
    messages.push({ role: 'user', content: `Task ${turn}: look into ${fillerText(turn, 24)}.` });
    try {
      const result = await generateText({
        model: wrapped,
        instructions: 'You are a careful research agent.',
        messages,
        tools: { lookup },
        stopWhen: stepCountIs(5),
        maxOutputTokens: OUTPUT,
        maxRetries: 0,
        providerOptions: { ctxmem: { sessionId: 'bench' } },
      });
      messages.push(...(result.responseMessages as ModelMessage[]));
    } catch (error) {
      if (!ContextOverflowError.isInstance(error)) throw error;
      failedTurns++;
      messages.pop();
    }
    const now = middleware.manager()!.calibration().ratio;
    if (now !== ratio) {
      ratio = now;
      settledAt = provider.requests.length;
    }
  }
  const cpu = process.cpuUsage(started);
  const judged = provider.requests;
  const rejectedAt = judged.flatMap((request, index) => (request.accepted ? [] : [index + 1]));
  return {
    modelCalls: judged.length,
    rejections: rejectedAt.length,
    lastRejection: rejectedAt.at(-1) ?? 0,
    failedTurns,
    ratio,
    settledAt,
    usedShares: judged
      .filter((request) => request.accepted)
      .map((request) => (request.providerTokens + OUTPUT) / window),
    cpuMs: (cpu.user + cpu.system) / 1_000,
  };
}

const percent = (value: number) => `${(100 * value).toFixed(1)} %`;

/**
 * What a budget at `ratio` lets a request take of the window, counted as the provider counts:
 * messages and tool definitions get (window − output) / ratio counted tokens, which the provider
 * counts `FACTOR` times; the output comes on top. Over 100 % the budget allows requests the
 * provider rejects.
 */
const budgetShare = (ratio: number, window: number) =>
  (((window - OUTPUT) / ratio) * FACTOR + OUTPUT) / window;

export const run: BenchRun = async ({ quick }) => {
  const turns = quick ? 16 : 40;
  const windows = quick ? [16_000] : [16_000, 64_000];
  const sections: BenchSection[] = [];
  for (const resumed of [false, true]) {
    const rows: BenchSection['rows'] = [];
    for (const window of windows) {
      for (const variant of VARIANTS) {
        const started = performance.now();
        const result = await runVariant(variant, turns, window, resumed);
        const learns = variant.calibration !== false && variant.calibration?.learn !== false;
        rows.push({
          window: window.toLocaleString('en-US'),
          variant: variant.name,
          'model calls': result.modelCalls,
          rejections: result.rejections,
          'last rejection at call': result.lastRejection || '—',
          'failed turns': result.failedTurns,
          'final ratio': result.ratio,
          'ratio settled at call': learns ? result.settledAt : '—',
          'budget as the provider counts / window': percent(budgetShare(result.ratio, window)),
          'largest accepted request + output / window': percent(Math.max(...result.usedShares)),
          'cpu ms': Math.round(result.cpuMs),
          'wall ms': Math.round(performance.now() - started),
        });
      }
    }
    sections.push({
      title: `Provider counting ${FACTOR}× o200k_base, ${turns} tool-using turns through the AI SDK middleware${resumed ? ', resuming a history that fills 75 % of the window' : ', from an empty history'}`,
      rows,
      notes: [
        resumed
          ? "The first request carries a history that fills 75 % of the window as ctxmem counts (under its trigger at ratio 1, over the provider's window at 1.3): nothing has been learned yet when the provider first counts."
          : "A scripted agent makes two lookups (about 450 words each) per user turn, so each turn is three model calls; the mock provider rejects what does not fit with Anthropic's 400 body and reports its count as usage otherwise. Every variant retries a rejected call once, smaller; a turn fails when the retry is rejected too.",
        '"budget" is what the budget at the final ratio lets messages and tool definitions take, counted as the provider counts, plus the output: over 100 % the budget allows requests the provider rejects; compaction keeps most requests well under it (it starts at 80 % of the room and lands at 60 %). "largest accepted request" is the provider\'s count of the largest request it accepted, with its output.',
        'Deterministic (same rejections and shares on every run); the ms columns are noisy on a shared machine.',
      ],
    });
  }
  return sections;
};

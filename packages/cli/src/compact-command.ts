import { writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { CompressionSettings, Scope, Summarizer, TokenCounter } from '@ctxmem/core';
import { BudgetExceededError, InvalidArgumentError, StorageError } from '@ctxmem/core';
import {
  optionalString,
  parseArguments,
  parseCount,
  parseHistoryMode,
  parseTokenCount,
  singleFile,
} from './arguments.js';
import { type Composition, measureComposition } from './composition.js';
import type {
  CliDependencies,
  CompactResult,
  ConversationFormat,
  HistoryMode,
} from './dependencies.js';
import { createOpenAICompatibleComplete } from './openai-complete.js';
import { describeFileError, readConversation } from './read-conversation.js';
import { renderCompactReport } from './render-report.js';
import type { CliContext } from './run-cli.js';

/** Offloads are stored under this scope, so `ctxmem reload` finds them. */
export const CLI_SCOPE: Scope = {};

/** Context window assumed for a summarizer model that the registry does not know. */
const UNKNOWN_MODEL_CONTEXT_WINDOW = 32_000;

export interface CompactCommandOptions {
  file: string;
  budgetTokens: number;
  targetTokens?: number;
  keepRecent?: number;
  history: HistoryMode;
  out?: string;
  reportJson?: string;
  model?: string;
  offloadDir?: string;
  /** From `OPENAI_API_KEY`, required with `model`. */
  apiKey?: string;
  /** From `OPENAI_BASE_URL`. */
  baseUrl: string;
}

/** Parses and validates `compact`'s arguments; every problem is an `InvalidArgumentError`. */
export function parseCompactArguments(
  argv: readonly string[],
  env: CliContext['env'],
): CompactCommandOptions {
  const { values, positionals } = parseArguments(argv, {
    budget: { type: 'string' },
    target: { type: 'string' },
    'keep-recent': { type: 'string' },
    history: { type: 'string' },
    out: { type: 'string' },
    'report-json': { type: 'string' },
    model: { type: 'string' },
    'offload-dir': { type: 'string' },
  });
  const file = singleFile(positionals, 'compact');
  if (values.budget === undefined) {
    throw new InvalidArgumentError({
      message: 'compact needs --budget <tokens>',
      argument: '--budget',
    });
  }
  const budgetTokens = parseTokenCount(values.budget, '--budget');
  const targetTokens =
    values.target === undefined ? undefined : parseTokenCount(values.target, '--target');
  if (targetTokens !== undefined && targetTokens > budgetTokens) {
    throw new InvalidArgumentError({
      message: `--target (${targetTokens}) must not be above --budget (${budgetTokens})`,
      argument: '--target',
    });
  }
  const history = values.history === undefined ? 'compressed' : parseHistoryMode(values.history);
  const keepRecent =
    values['keep-recent'] === undefined
      ? undefined
      : parseCount(values['keep-recent'], '--keep-recent');
  if (keepRecent !== undefined && history === 'summary-only') {
    throw new InvalidArgumentError({
      message:
        '--keep-recent does nothing with --history summary-only (it keeps only the current round); use recent-only',
      argument: '--keep-recent',
    });
  }
  const model = optionalString(values.model, '--model');
  const apiKey = env.OPENAI_API_KEY?.trim() || undefined;
  if (model !== undefined && apiKey === undefined) {
    throw new InvalidArgumentError({
      message: `--model ${model} summarizes through an OpenAI-compatible API and needs OPENAI_API_KEY (and OPENAI_BASE_URL for other providers); leave out --model for the offline summarizer`,
      argument: '--model',
    });
  }
  const out = optionalString(values.out, '--out');
  const reportJson = optionalString(values['report-json'], '--report-json');
  const offloadDir = optionalString(values['offload-dir'], '--offload-dir');
  return {
    file,
    budgetTokens,
    history,
    baseUrl: env.OPENAI_BASE_URL?.trim() || 'https://api.openai.com/v1',
    ...(targetTokens !== undefined ? { targetTokens } : {}),
    ...(keepRecent !== undefined ? { keepRecent } : {}),
    ...(out !== undefined ? { out } : {}),
    ...(reportJson !== undefined ? { reportJson } : {}),
    ...(model !== undefined ? { model } : {}),
    ...(apiKey !== undefined ? { apiKey } : {}),
    ...(offloadDir !== undefined ? { offloadDir } : {}),
  };
}

/**
 * `--keep-recent` means "messages" for the compressed history (`minMessagesToKeep`) and "rounds"
 * for recent-only (`recentRounds`), the unit each strategy keeps.
 */
export function keepRecentSettings(
  history: HistoryMode,
  keepRecent: number | undefined,
): Partial<CompressionSettings> {
  if (keepRecent === undefined) return {};
  if (history === 'compressed') return { minMessagesToKeep: keepRecent };
  if (history === 'recent-only') return { recentRounds: keepRecent };
  return {};
}

/** What `--report-json` writes. */
export interface CompactReportJson {
  file: string;
  format: ConversationFormat;
  history: HistoryMode;
  /** The whole request's budget: tool definitions + messages (system included). */
  budgetTokens: number;
  /** Tokens of the body's tool definitions. */
  toolTokens: number;
  targetTokens: number;
  settings: Partial<CompressionSettings>;
  counter: string;
  summarizer: string;
  before: { messages: number; tokens: number; composition: Composition };
  after: { messages: number; tokens: number; composition: Composition };
  report: CompactResult['report'];
  offload: { dir: string; ids: string[] };
  cards: CompactResult['cards'];
  durationMs: number;
}

export async function runCompact(
  options: CompactCommandOptions,
  context: CliContext,
  dependencies: CliDependencies,
): Promise<number> {
  const started = performance.now();
  const { cwd } = context;
  const input = await readConversation(resolve(cwd, options.file), options.file, dependencies);
  const counter = dependencies.createTokenCounter(options.model ? { model: options.model } : {});
  const summarizer = createSummarizer(options, counter, dependencies, context);
  const offloadDir = resolve(
    cwd,
    options.offloadDir ?? join(options.out ? dirname(options.out) : '.', '.ctxmem', 'offload'),
  );
  const settings = keepRecentSettings(options.history, options.keepRecent);
  // The budget covers the whole request body: its tool definitions take their share first.
  const tools = Array.isArray(input.envelope?.tools) ? (input.envelope.tools as unknown[]) : [];
  const toolTokens = dependencies.countToolDefinitions(tools, counter);
  const messageBudget = options.budgetTokens - toolTokens;
  if (messageBudget < 1) {
    throw new BudgetExceededError({
      message: `the body's ${tools.length} tool definitions alone take ${toolTokens} tokens of the budget of ${options.budgetTokens}`,
      requiredTokens: toolTokens + 1,
      budgetTokens: options.budgetTokens,
    });
  }

  const result = await dependencies.compact(input.messages, {
    budgetTokens: messageBudget,
    ...(options.targetTokens !== undefined
      ? { targetTokens: Math.max(1, Math.min(options.targetTokens - toolTokens, messageBudget)) }
      : {}),
    counter,
    summarizer,
    offloadStore: dependencies.createFileOffloadStore({ root: offloadDir }),
    scope: CLI_SCOPE,
    history: options.history,
    settings,
    // Already within the target → the input comes back unchanged, not re-summarized (a
    // `manual` trigger would force the history strategies, so none is given).
    force: false,
  });

  const tokensBefore = counter.countMessages(input.messages) + toolTokens;
  const tokensAfter = counter.countMessages(result.messages) + toolTokens;
  // The budget is a guarantee: never write an over-budget result, even if a strategy misbehaved.
  if (tokensAfter > options.budgetTokens) {
    throw new BudgetExceededError({
      message: `the compacted request still has ${tokensAfter} tokens, over the budget of ${options.budgetTokens}`,
      requiredTokens: tokensAfter,
      budgetTokens: options.budgetTokens,
    });
  }

  const serialized = `${JSON.stringify(
    dependencies.serializeConversation(
      result.messages,
      input.format,
      input.envelope,
      input.systemAsBlocks ? { systemAsBlocks: true } : {},
    ),
    null,
    2,
  )}\n`;
  if (options.out) {
    await writeText(resolve(cwd, options.out), options.out, serialized);
  } else {
    context.stdout.write(serialized);
  }

  const offloadIds = result.report.strategies.flatMap((strategy) => strategy.offloadIds ?? []);
  const before = measureComposition(input.messages, counter);
  const after = measureComposition(result.messages, counter);
  const durationMs = Math.round(performance.now() - started);
  const fromCwd = relative(cwd, offloadDir);
  const displayOffloadDir = fromCwd === '' ? '.' : fromCwd.startsWith('..') ? offloadDir : fromCwd;

  if (options.reportJson) {
    const reportJson: CompactReportJson = {
      file: options.file,
      format: input.format,
      history: options.history,
      budgetTokens: options.budgetTokens,
      toolTokens,
      targetTokens: result.report.targetTokens + toolTokens,
      settings,
      counter: counter.name,
      summarizer: summarizer.name,
      before: { messages: input.messages.length, tokens: tokensBefore, composition: before },
      after: { messages: result.messages.length, tokens: tokensAfter, composition: after },
      report: result.report,
      offload: { dir: offloadDir, ids: offloadIds },
      cards: result.cards,
      durationMs,
    };
    await writeText(
      resolve(cwd, options.reportJson),
      options.reportJson,
      `${JSON.stringify(reportJson, null, 2)}\n`,
    );
  }

  context.stderr.write(
    renderCompactReport({
      file: options.file,
      format: input.format,
      counterName: counter.name,
      summarizerName: summarizer.name,
      history: options.history,
      messagesBefore: input.messages.length,
      messagesAfter: result.messages.length,
      tokensBefore,
      tokensAfter,
      budgetTokens: options.budgetTokens,
      toolTokens,
      report: result.report,
      before,
      after,
      offloadIds,
      offloadDir: displayOffloadDir,
      out: options.out,
      durationMs,
    }),
  );
  return 0;
}

function createSummarizer(
  options: CompactCommandOptions,
  counter: TokenCounter,
  dependencies: CliDependencies,
  context: CliContext,
): Summarizer {
  const extractive = dependencies.createExtractiveSummarizer({ counter });
  if (!options.model || !options.apiKey) return extractive;
  const complete = createOpenAICompatibleComplete({
    apiKey: options.apiKey,
    model: options.model,
    baseUrl: options.baseUrl,
    ...(context.fetch ? { fetch: context.fetch } : {}),
  });
  const model = dependencies.createModelSummarizer({
    complete,
    counter,
    contextWindow: dependencies.resolveContextWindow(options.model) ?? UNKNOWN_MODEL_CONTEXT_WINDOW,
    name: `model:${options.model}`,
  });
  return dependencies.withFallback(model, extractive);
}

async function writeText(path: string, displayName: string, text: string): Promise<void> {
  try {
    await writeFile(path, text, 'utf8');
  } catch (cause) {
    throw new StorageError({
      message: `cannot write ${displayName}: ${describeFileError(cause)}`,
      path,
      cause,
    });
  }
}

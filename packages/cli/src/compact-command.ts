import { writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type {
  CompressionSettings,
  OffloadStore,
  Scope,
  Summarizer,
  TokenCounter,
  TokenEncodingName,
} from '@ctxmem/core';
import { BudgetExceededError, InvalidArgumentError, StorageError } from '@ctxmem/core';
import {
  optionalString,
  parseArguments,
  parseCount,
  parseHistoryMode,
  parseTokenCount,
  singleFile,
} from './arguments.js';
import {
  chooseTokenizer,
  createBodyCounter,
  parseEncoding,
  parseMargin,
  type TokenizerChoice,
} from './body-tokenizer.js';
import { type Composition, measureComposition } from './composition.js';
import type {
  CliDependencies,
  CompactResult,
  ConversationFormat,
  HistoryMode,
} from './dependencies.js';
import { formatNumber } from './format.js';
import { mentionsTool, toolForBody, toolName } from './memory-tool-definitions.js';
import { createOpenAICompatibleComplete } from './openai-complete.js';
import { type Activity, chooseProgressStyle, createActivity } from './progress.js';
import { describeFileError, parseConversationText, readConversation } from './read-conversation.js';
import { oneLine, renderCompactReport } from './render-report.js';
import type { CliContext } from './run-cli.js';
import { readStandardInput, STANDARD_STREAM } from './standard-input.js';

/** Offloads are stored under this scope, so `ctxmem reload` finds them. */
export const CLI_SCOPE: Scope = {};

/** Context window assumed for a summarizer model that the registry does not know. */
const UNKNOWN_MODEL_CONTEXT_WINDOW = 32_000;

/** How long one summary may wait for the model endpoint before the offline summarizer takes over. */
export const DEFAULT_TIMEOUT_MS = 30_000;

export { STANDARD_STREAM };

/**
 * From this many tokens a body shows progress on a terminal (any size with `--model`, whose
 * summaries take seconds each); smaller ones are done before a status line could be read.
 */
export const PROGRESS_MIN_TOKENS = 20_000;

export interface CompactCommandOptions {
  /** A path, or `-` for stdin. */
  file: string;
  budgetTokens: number;
  targetTokens?: number;
  keepRecent?: number;
  history: HistoryMode;
  /** A path, or `-` for stdout (the default). */
  out?: string;
  /** A path, or `-` for stdout when the result goes to a file. */
  reportJson?: string;
  model?: string;
  offloadDir?: string;
  /** `--encoding`: counts with this encoding whatever the body's model. */
  encoding?: TokenEncodingName;
  /** `--margin`: factor on every count. @default by the model, see `chooseTokenizer` */
  margin?: number;
  /** `--timeout`: milliseconds one summary may wait for the model endpoint. @default 30000 */
  timeoutMs: number;
  /** `--no-tools` makes it false: memory tools the output refers to are not added to `tools`. @default true */
  tools: boolean;
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
    encoding: { type: 'string' },
    margin: { type: 'string' },
    timeout: { type: 'string' },
    'no-tools': { type: 'boolean' },
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
  if (reportJson === STANDARD_STREAM && (out ?? STANDARD_STREAM) === STANDARD_STREAM) {
    throw new InvalidArgumentError({
      message: '--report-json - needs --out <file>: the compacted body already goes to stdout',
      argument: '--report-json',
    });
  }
  const encoding = values.encoding === undefined ? undefined : parseEncoding(values.encoding);
  const margin = values.margin === undefined ? undefined : parseMargin(values.margin);
  const timeoutMs =
    values.timeout === undefined ? DEFAULT_TIMEOUT_MS : parseMilliseconds(values.timeout);
  return {
    file,
    budgetTokens,
    history,
    timeoutMs,
    tools: values['no-tools'] !== true,
    ...(encoding !== undefined ? { encoding } : {}),
    ...(margin !== undefined ? { margin } : {}),
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

/** `--timeout`: whole milliseconds, at least 1 (`30000`, `30_000`). */
function parseMilliseconds(value: string | boolean | undefined): number {
  const text = String(value ?? '').trim();
  const digits = text.replace(/_/g, '');
  const parsed = /^\d+$/.test(digits) ? Number(digits) : Number.NaN;
  if (!Number.isSafeInteger(parsed) || parsed < 1) {
    throw new InvalidArgumentError({
      message: `--timeout must be a whole number of milliseconds above 0, got "${text}"`,
      argument: '--timeout',
    });
  }
  return parsed;
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
  /** Tokens of the output's tool definitions (the body's and any added). */
  toolTokens: number;
  /** Memory tools added to the body's `tools` because the output refers to them. */
  addedTools: string[];
  /**
   * The output the body asks for (`max_output_tokens`, `max_completion_tokens`, `max_tokens`):
   * not part of the budget, which limits what is sent, but checked against the model's window.
   */
  outputTokens?: { field: string; tokens: number; contextWindow?: number };
  targetTokens: number;
  settings: Partial<CompressionSettings>;
  counter: string;
  /** How the counter was chosen: the model or encoding, and the margin on every count. */
  tokenizer: TokenizerChoice;
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
  const fromStdin = options.file === STANDARD_STREAM;
  const toStdout = (options.out ?? STANDARD_STREAM) === STANDARD_STREAM;
  const input = fromStdin
    ? parseConversationText(
        await readStandardInput(context, { example: 'ctxmem compact - < body.json' }),
        'stdin',
        dependencies,
      )
    : await readConversation(resolve(cwd, options.file), options.file, dependencies);
  const bodyModel = typeof input.envelope?.model === 'string' ? input.envelope.model : undefined;
  const tokenizer = chooseTokenizer({
    bodyModel,
    summarizerModel: options.model,
    encoding: options.encoding,
    margin: options.margin,
  });
  const counter = createBodyCounter(tokenizer, dependencies);
  const messageTokensBefore = counter.countMessages(input.messages);
  const activity = createActivity({
    stream: context.stderr,
    label: `compacting ${fromStdin ? 'stdin' : options.file}`,
    style: chooseProgressStyle({
      stream: context.stderr as { isTTY?: boolean },
      env: context.env,
      quiet: context.quiet === true,
      total: messageTokensBefore,
      threshold: options.model !== undefined ? 1 : PROGRESS_MIN_TOKENS,
    }),
  });
  const created = createSummarizer(options, counter, dependencies, context);
  const { firstFailure } = created;
  const summarizer = withActivity(created.summarizer, activity);
  const offloadDir = resolve(
    cwd,
    options.offloadDir ?? join(toStdout ? '.' : dirname(options.out ?? '.'), '.ctxmem', 'offload'),
  );
  const offloadStore = dependencies.createFileOffloadStore({ root: offloadDir });
  const settings = keepRecentSettings(options.history, options.keepRecent);
  // The budget covers the whole request body: its tool definitions take their share first.
  const tools = Array.isArray(input.envelope?.tools) ? (input.envelope.tools as unknown[]) : [];
  const toolTokens = dependencies.countToolDefinitions(tools, counter);
  // A memory tool the output may refer to is reserved up front, so adding it keeps the budget.
  const reloadTool = memoryToolToAdd(options, input, tools, offloadStore, dependencies);
  const reserveTokens = reloadTool?.body
    ? dependencies.countToolDefinitions([reloadTool.body], counter)
    : 0;
  const messageBudget = options.budgetTokens - toolTokens - reserveTokens;
  if (messageBudget < 1) {
    throw new BudgetExceededError({
      message: `the body's ${tools.length} tool definitions alone take ${toolTokens + reserveTokens} tokens of the budget of ${options.budgetTokens}${reserveTokens > 0 ? ` (${reserveTokens} of them for reload_context; --no-tools leaves it out)` : ''}`,
      requiredTokens: toolTokens + reserveTokens + 1,
      budgetTokens: options.budgetTokens,
    });
  }

  activity.show(`${formatNumber(messageTokensBefore)} tokens`);
  const result = await dependencies
    .compact(input.messages, {
      budgetTokens: messageBudget,
      ...(options.targetTokens !== undefined
        ? {
            targetTokens: Math.max(
              1,
              Math.min(options.targetTokens - toolTokens - reserveTokens, messageBudget),
            ),
          }
        : {}),
      counter,
      summarizer,
      offloadStore,
      scope: CLI_SCOPE,
      history: options.history,
      settings,
      // Already within the target → the input comes back unchanged, not re-summarized (a
      // `manual` trigger would force the history strategies, so none is given).
      force: false,
      onEvent: (event) => {
        if (event.type !== 'strategy') return;
        const { strategy, tokensBefore, tokensAfter } = event.report;
        activity.show(
          `${strategy}: ${formatNumber(tokensBefore)} → ${formatNumber(tokensAfter)} tokens`,
        );
      },
    })
    .finally(() => activity.finish());

  let serializedBody = dependencies.serializeConversation(
    result.messages,
    input.format,
    input.envelope,
    {
      ...(input.systemAsBlocks ? { systemAsBlocks: true } : {}),
      ...(input.inputAsText ? { inputAsText: true } : {}),
    },
  ) as unknown;
  const addedTools: string[] = [];
  let outputTools: readonly unknown[] = tools;
  if (reloadTool && mentionsTool(JSON.stringify(serializedBody), reloadTool.name)) {
    if (reloadTool.body && isRecord(serializedBody)) {
      outputTools = [...tools, reloadTool.body];
      serializedBody = { ...serializedBody, tools: outputTools };
      addedTools.push(reloadTool.name);
    } else {
      context.stderr.write(
        `note: the output refers to ${reloadTool.name}, but ${reloadTool.why ?? 'the body cannot hold it'}: define the tool in the request that sends it (--no-tools hides this note)\n`,
      );
    }
  }
  const outputToolTokens = dependencies.countToolDefinitions(outputTools, counter);
  const outputTokens = outputTokensOf(input.envelope, bodyModel, dependencies);
  const tokensBefore = messageTokensBefore + toolTokens;
  const tokensAfter = counter.countMessages(result.messages) + outputToolTokens;
  // The budget is a guarantee: never write an over-budget result, even if a strategy misbehaved.
  if (tokensAfter > options.budgetTokens) {
    throw new BudgetExceededError({
      message: `the compacted request still has ${tokensAfter} tokens, over the budget of ${options.budgetTokens}`,
      requiredTokens: tokensAfter,
      budgetTokens: options.budgetTokens,
    });
  }

  const serialized = `${JSON.stringify(serializedBody, null, 2)}\n`;
  if (toStdout) {
    context.stdout.write(serialized);
  } else {
    await writeText(resolve(cwd, options.out!), options.out!, serialized);
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
      toolTokens: outputToolTokens,
      addedTools,
      ...(outputTokens !== undefined ? { outputTokens } : {}),
      targetTokens: result.report.targetTokens + toolTokens + reserveTokens,
      settings,
      counter: counter.name,
      tokenizer,
      summarizer: summarizer.name,
      before: { messages: input.messages.length, tokens: tokensBefore, composition: before },
      after: { messages: result.messages.length, tokens: tokensAfter, composition: after },
      report: result.report,
      offload: { dir: offloadDir, ids: offloadIds },
      cards: result.cards,
      durationMs,
    };
    const text = `${JSON.stringify(reportJson, null, 2)}\n`;
    if (options.reportJson === STANDARD_STREAM) context.stdout.write(text);
    else await writeText(resolve(cwd, options.reportJson), options.reportJson, text);
  }

  if (context.quiet !== true) {
    context.stderr.write(
      renderCompactReport({
        file: fromStdin ? 'stdin' : options.file,
        format: input.format,
        counterName: counter.name,
        summarizerName: summarizer.name,
        history: options.history,
        messagesBefore: input.messages.length,
        messagesAfter: result.messages.length,
        tokensBefore,
        tokensAfter,
        budgetTokens: options.budgetTokens,
        toolTokens: outputToolTokens,
        report: result.report,
        before,
        after,
        offloadIds,
        offloadDir: displayOffloadDir,
        out: toStdout ? undefined : options.out,
        durationMs,
      }),
    );
  }
  const failure = firstFailure();
  if (failure !== undefined) {
    context.stderr.write(
      `The model endpoint failed once (${oneLine(failure)}); the rest of the run summarized offline without calling it again\n`,
    );
  }
  if (outputTokens?.contextWindow !== undefined) {
    const { field, tokens, contextWindow } = outputTokens;
    if (options.budgetTokens + tokens > contextWindow) {
      context.stderr.write(
        `note: --budget ${options.budgetTokens} plus the body's ${field} ${tokens} is over ${bodyModel}'s context window of ${contextWindow}; the request may be refused (--budget ${Math.max(1, contextWindow - tokens)} leaves room for the output)\n`,
      );
    }
  }
  if (addedTools.length > 0 && context.quiet !== true) {
    context.stderr.write(
      `Added the ${addedTools.join(', ')} tool definition to "tools" (the output refers to it; --no-tools leaves it out)\n`,
    );
  }
  return 0;
}

/**
 * The `reload_context` definition in the body's own format, when the output may need it: tools
 * are on, the body has an envelope to hold them (or is a bare array, which gets a note instead),
 * its `tools` is an array, and it does not define the tool already.
 */
function memoryToolToAdd(
  options: CompactCommandOptions,
  input: { format: ConversationFormat; envelope: Record<string, unknown> | undefined },
  tools: readonly unknown[],
  offloadStore: OffloadStore,
  dependencies: CliDependencies,
): { name: string; body: Record<string, unknown> | undefined; why?: string } | undefined {
  if (!options.tools) return undefined;
  const tool = dependencies.reloadContextTool(offloadStore);
  if (input.envelope === undefined) {
    return { name: tool.name, body: undefined, why: 'a bare messages array has no tools field' };
  }
  if (input.envelope.tools !== undefined && !Array.isArray(input.envelope.tools)) {
    return { name: tool.name, body: undefined, why: 'the body\'s "tools" is not an array' };
  }
  if (tools.some((existing) => toolName(existing) === tool.name)) return undefined;
  return { name: tool.name, body: toolForBody(tool, input.format) };
}

/** The output limit fields of Responses, Chat Completions and Anthropic bodies, in that order. */
const OUTPUT_TOKEN_FIELDS = ['max_output_tokens', 'max_completion_tokens', 'max_tokens'] as const;

/** The output the body asks for, and the body model's window when it is known. */
function outputTokensOf(
  envelope: Record<string, unknown> | undefined,
  bodyModel: string | undefined,
  dependencies: Pick<CliDependencies, 'resolveContextWindow'>,
): CompactReportJson['outputTokens'] {
  const field = OUTPUT_TOKEN_FIELDS.find((name) => {
    const value = envelope?.[name];
    return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
  });
  if (field === undefined) return undefined;
  const contextWindow =
    bodyModel === undefined ? undefined : dependencies.resolveContextWindow(bodyModel);
  return {
    field,
    tokens: envelope![field] as number,
    ...(contextWindow !== undefined ? { contextWindow } : {}),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The summarizer, showing each call on the status line (the slow part of a compaction). */
function withActivity(summarizer: Summarizer, activity: Activity): Summarizer {
  let calls = 0;
  return {
    name: summarizer.name,
    summarize(request) {
      calls++;
      activity.show(`summarizing with ${summarizer.name}, call ${calls}`);
      return summarizer.summarize(request);
    },
  };
}

function createSummarizer(
  options: CompactCommandOptions,
  counter: TokenCounter,
  dependencies: CliDependencies,
  context: CliContext,
): { summarizer: Summarizer; firstFailure: () => string | undefined } {
  const extractive = dependencies.createExtractiveSummarizer({ counter });
  if (!options.model || !options.apiKey) {
    return { summarizer: extractive, firstFailure: () => undefined };
  }
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
    timeoutMs: options.timeoutMs,
    name: `model:${options.model}`,
  });
  // Kept for the report: later calls only say that the circuit is open.
  let failure: string | undefined;
  const recorded: Summarizer = {
    name: model.name,
    async summarize(request) {
      try {
        return await model.summarize(request);
      } catch (error) {
        failure ??= error instanceof Error ? error.message : String(error);
        throw error;
      }
    },
  };
  // One failure (a timeout, an outage) opens the circuit: the rest of this run summarizes offline
  // at once instead of waiting for the endpoint again on every call.
  const breaker = dependencies.withCircuitBreaker(recorded, { failures: 1 });
  return {
    summarizer: dependencies.withFallback(breaker, extractive),
    firstFailure: () => failure,
  };
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

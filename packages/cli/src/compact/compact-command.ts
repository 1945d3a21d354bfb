/**
 * `ctxmem compact <file>`: a request body's messages compacted to fit `--budget` with its tool
 * definitions, written back in the body's own format, with a report of what was done.
 */
import { writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { CompressionSettings, Scope } from '@ctxmem/core';
import { BudgetExceededError, StorageError } from '@ctxmem/core';
import { chooseTokenizer, createBodyCounter, type TokenizerChoice } from '../body-tokenizer.js';
import { type Composition, measureComposition } from '../composition.js';
import type {
  CliDependencies,
  CompactResult,
  ConversationFormat,
  HistoryMode,
  ParsedConversation,
} from '../dependencies.js';
import { formatNumber, oneLine } from '../format.js';
import { fileBytes, releaseInputText } from '../large-input.js';
import { chooseProgressStyle, createActivity } from '../progress.js';
import {
  describeFileError,
  parseConversationText,
  readConversation,
} from '../read-conversation.js';
import { renderCompactReport } from '../render-report.js';
import type { CliContext } from '../run-cli.js';
import { readStandardInput, STANDARD_STREAM } from '../standard-input.js';
import { type CompactCommandOptions, keepRecentSettings } from './compact-arguments.js';
import { createSummarizer, withActivity } from './compact-summarizer.js';
import { mentionsTool } from './memory-tool-definitions.js';
import { isRecord, memoryToolToAdd, type OutputTokens, outputTokensOf } from './request-tools.js';

/** Offloads are stored under this scope, so `ctxmem reload` finds them. */
export const CLI_SCOPE: Scope = Object.freeze({});

/**
 * From this many tokens a body shows progress on a terminal (any size with `--model`, whose
 * summaries take seconds each); smaller ones are done before a status line could be read.
 */
export const PROGRESS_MIN_TOKENS = 20_000;

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
  outputTokens?: OutputTokens;
  targetTokens: number;
  settings: Partial<CompressionSettings>;
  counter: string;
  /** How the counter was chosen: the model or encoding, and the margin on every count. */
  tokenizer: TokenizerChoice;
  summarizer: string;
  before: {
    messages: number;
    tokens: number;
    /**
     * Set when `tokens` (and the composition) are lower bounds: a payload surely over the budget
     * was measured by its floor, not tokenized (see core's `boundedCounter`).
     */
    tokensIsLowerBound?: true;
    composition: Composition;
  };
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
  const { input, bytes } = await readInput(options, context, dependencies);
  releaseInputText(bytes);
  const bodyModel = typeof input.envelope?.model === 'string' ? input.envelope.model : undefined;
  const tokenizer = chooseTokenizer({
    bodyModel,
    summarizerModel: options.model,
    encoding: options.encoding,
    margin: options.margin,
  });
  const counter = createBodyCounter(tokenizer, dependencies);
  // The input is measured within the budget: a payload far over it (a 50 MB tool result) counts
  // as its floor, one pass over its characters, since it is cut anyway; compaction reuses that.
  const measure = dependencies.boundedCounter(counter, options.budgetTokens);
  const messageTokensBefore = measure.countMessages(input.messages);
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
  const before = measureComposition(input.messages, measure);
  const beforeIsLowerBound = measure.countedByFloor;
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
      before: {
        messages: input.messages.length,
        tokens: tokensBefore,
        ...(beforeIsLowerBound ? { tokensIsLowerBound: true as const } : {}),
        composition: before,
      },
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
        ...(beforeIsLowerBound ? { tokensBeforeIsLowerBound: true } : {}),
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

/** The body to compact, from stdin or a file, and its size in bytes. */
async function readInput(
  options: CompactCommandOptions,
  context: CliContext,
  dependencies: CliDependencies,
): Promise<{ input: ParsedConversation; bytes: number }> {
  if (options.file === STANDARD_STREAM) {
    const text = await readStandardInput(context, { example: 'ctxmem compact - < body.json' });
    return { input: parseConversationText(text, 'stdin', dependencies), bytes: text.length };
  }
  const path = resolve(context.cwd, options.file);
  return {
    input: await readConversation(path, options.file, dependencies),
    bytes: fileBytes(path),
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

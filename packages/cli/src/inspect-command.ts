import { resolve } from 'node:path';
import type { Message, TokenCounter } from '@ctxmem/core';
import { BudgetExceededError, InvalidArgumentError, messageText } from '@ctxmem/core';
import { toolCallsOf } from '@ctxmem/core/adapter-kit';
import {
  optionalString,
  parseArguments,
  parseCount,
  parseTokenCount,
  singleFile,
} from './arguments.js';
import { measureComposition, renderComposition } from './composition.js';
import type { BudgetPlan, CliDependencies } from './dependencies.js';
import { formatNumber, formatPercent, oneLine, preview, table } from './format.js';
import { parseConversationText, readConversation } from './read-conversation.js';
import { renderStrategies } from './render-report.js';
import type { CliContext } from './run-cli.js';
import { readStandardInput, STANDARD_STREAM } from './standard-input.js';

/** The window assumed without --context-window or a known --model (gpt-4o's). */
export const DEFAULT_CONTEXT_WINDOW = 128_000;

export interface InspectCommandOptions {
  /** A conversation file, or (with --html / --serve) a session id in a store. */
  file: string;
  contextWindow?: number;
  model?: string;
  top: number;
  /** Write the inspector page to this file. */
  html?: string;
  /** Serve the inspector page on 127.0.0.1 until Ctrl+C. @default false */
  serve?: boolean;
  /** @default a random free port */
  port?: number;
  /** The messages' budget of the page's dry run. @default the window's budget */
  budgetTokens?: number;
  /** The store a session is read from: a folder, `postgres://…` or `redis://…`. @default `<cwd>/.ctxmem` */
  store?: string;
  userId?: string;
  agentId?: string;
  /** A memory card store searched for injections during the replay. @default none */
  memoryStore?: string;
}

const PAGE_ONLY = ['budget', 'port', 'store', 'user', 'agent', 'memory-store'] as const;

export function parseInspectArguments(argv: readonly string[]): InspectCommandOptions {
  const { values, positionals } = parseArguments(argv, {
    'context-window': { type: 'string' },
    model: { type: 'string' },
    top: { type: 'string' },
    html: { type: 'string' },
    serve: { type: 'boolean' },
    port: { type: 'string' },
    budget: { type: 'string' },
    store: { type: 'string' },
    user: { type: 'string' },
    agent: { type: 'string' },
    'memory-store': { type: 'string' },
  });
  const file = singleFile(positionals, 'inspect', {
    noun: 'a conversation file or session id',
    placeholder: '<file.json|session>',
  });
  const model = optionalString(values.model, '--model');
  const page = values.html !== undefined || values.serve === true;
  const misplaced = PAGE_ONLY.find((flag) => values[flag] !== undefined);
  if (!page && misplaced !== undefined) {
    throw new InvalidArgumentError({
      message: `--${misplaced} only applies with --html <file> or --serve`,
      argument: `--${misplaced}`,
    });
  }
  const strings = {
    html: optionalString(values.html, '--html'),
    store: optionalString(values.store, '--store'),
    userId: optionalString(values.user, '--user'),
    agentId: optionalString(values.agent, '--agent'),
    memoryStore: optionalString(values['memory-store'], '--memory-store'),
  };
  return {
    file,
    ...Object.fromEntries(Object.entries(strings).filter(([, value]) => value !== undefined)),
    ...(values.serve === true ? { serve: true } : {}),
    ...(values.port !== undefined ? { port: parsePort(values.port) } : {}),
    ...(values.budget !== undefined
      ? { budgetTokens: parseTokenCount(values.budget, '--budget') }
      : {}),
    top: values.top === undefined ? 10 : parseCount(values.top, '--top'),
    ...(values['context-window'] !== undefined
      ? { contextWindow: parseTokenCount(values['context-window'], '--context-window') }
      : {}),
    ...(model !== undefined ? { model } : {}),
  };
}

export async function runInspect(
  options: InspectCommandOptions,
  context: CliContext,
  dependencies: CliDependencies,
): Promise<number> {
  if (options.html !== undefined || options.serve) {
    // Loaded on use: the page, the replay and the server are not needed for the text report.
    const { runInspector } = await import('./inspector/index.js');
    return runInspector(
      {
        target: options.file,
        contextWindow: resolveWindow(options, dependencies),
        serve: options.serve ?? false,
        ...pick(options, [
          'html',
          'port',
          'budgetTokens',
          'model',
          'store',
          'userId',
          'agentId',
          'memoryStore',
        ]),
      },
      context,
      dependencies,
    );
  }
  const input =
    options.file === STANDARD_STREAM
      ? parseConversationText(
          await readStandardInput(context, { example: 'ctxmem inspect - < conversation.json' }),
          'stdin',
          dependencies,
        )
      : await readConversation(resolve(context.cwd, options.file), options.file, dependencies);
  const counter = dependencies.createTokenCounter(options.model ? { model: options.model } : {});
  const contextWindow = resolveWindow(options, dependencies);
  const plan = dependencies.resolveBudget({ contextWindow: contextWindow.tokens });
  const tokens = counter.countMessages(input.messages);
  const toolCalls = input.messages.reduce((sum, message) => sum + toolCallsOf(message).length, 0);

  const fill = tokens / plan.contextWindow;
  const state =
    tokens > plan.budgetTokens
      ? 'over the budget: a compaction is required'
      : tokens >= plan.triggerTokens
        ? 'at or over the trigger: a compaction would run'
        : 'below the trigger: no compaction would run yet';
  const lines = [
    `${options.file}`,
    `  format    ${input.format}, ${input.messages.length} messages, ${toolCalls} tool calls`,
    `  tokens    ${formatNumber(tokens)} (counted with ${counter.name})`,
    `  window    ${formatNumber(plan.contextWindow)} ${contextWindow.source}; budget ${formatNumber(plan.budgetTokens)}, trigger ${formatNumber(plan.triggerTokens)}, target ${formatNumber(plan.targetTokens)}`,
    `  fill      ${formatPercent(tokens, plan.contextWindow)} of the window (${fill > 1 ? 'overflowing' : state})`,
    '',
    'Composition',
    ...renderComposition(measureComposition(input.messages, counter)).map((line) => `  ${line}`),
  ];

  if (options.top > 0) {
    lines.push(
      '',
      'Largest messages',
      ...renderLargest(input.messages, counter, options.top, tokens),
    );
  }

  lines.push(
    '',
    `Dry run: compact --budget ${plan.budgetTokens} --target ${plan.targetTokens} (nothing is written)`,
  );
  lines.push(...(await dryRun(input.messages, plan, counter, dependencies)));
  context.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

async function dryRun(
  messages: readonly Message[],
  plan: BudgetPlan,
  counter: TokenCounter,
  dependencies: CliDependencies,
): Promise<string[]> {
  try {
    const result = await dependencies.compact(messages, {
      budgetTokens: plan.budgetTokens,
      targetTokens: plan.targetTokens,
      counter,
      summarizer: dependencies.createExtractiveSummarizer({ counter }),
      offloadStore: dependencies.createInMemoryOffloadStore(),
      // Below the target nothing fires (a `manual` trigger would force the history strategies).
      force: false,
    });
    const lines = renderStrategies(result.report).map((line) => `  ${line}`);
    if (result.report.strategies.length > 0) {
      const applied = result.report.strategies.filter((strategy) => strategy.applied);
      lines.push(
        `  would fire: ${applied.map((strategy) => strategy.strategy).join(', ') || 'none'}; tokens after ${formatNumber(counter.countMessages(result.messages))}`,
      );
    }
    return lines;
  } catch (error) {
    // Inspect is a diagnosis: an impossible budget is a finding, not a failure.
    if (!BudgetExceededError.isInstance(error)) throw error;
    return [
      `  cannot fit: the smallest valid prompt needs ${formatNumber(error.requiredTokens)} tokens, the budget is ${formatNumber(error.budgetTokens)} (${oneLine(error.message)})`,
    ];
  }
}

function pick<Value extends object, Key extends keyof Value>(
  value: Value,
  keys: readonly Key[],
): Partial<Pick<Value, Key>> {
  return Object.fromEntries(
    keys.filter((key) => value[key] !== undefined).map((key) => [key, value[key]]),
  ) as Partial<Pick<Value, Key>>;
}

/** A TCP port, 1 to 65535 (0 would mean "any", which is the default without --port). */
function parsePort(value: string | boolean | undefined): number {
  const port = parseCount(value, '--port');
  if (port < 1 || port > 65_535) {
    throw new InvalidArgumentError({
      message: `--port must be between 1 and 65535, got ${port}`,
      argument: '--port',
    });
  }
  return port;
}

function resolveWindow(
  options: InspectCommandOptions,
  dependencies: CliDependencies,
): { tokens: number; source: string } {
  if (options.contextWindow !== undefined) {
    return { tokens: options.contextWindow, source: '(--context-window)' };
  }
  if (options.model !== undefined) {
    const tokens = dependencies.resolveContextWindow(options.model);
    if (tokens === undefined) {
      throw new InvalidArgumentError({
        message: `unknown context window for model "${options.model}"; pass --context-window <tokens>`,
        argument: '--model',
      });
    }
    return { tokens, source: `(${options.model})` };
  }
  return { tokens: DEFAULT_CONTEXT_WINDOW, source: '(default; set --context-window or --model)' };
}

function renderLargest(
  messages: readonly Message[],
  counter: TokenCounter,
  top: number,
  total: number,
): string[] {
  const ranked = messages
    .map((message, index) => ({ message, index, tokens: counter.countMessage(message) }))
    .sort((left, right) => right.tokens - left.tokens || left.index - right.index)
    .slice(0, top);
  const rows = [['#', 'role', 'tokens', 'share', 'preview']];
  for (const { message, index, tokens } of ranked) {
    rows.push([
      String(index),
      message.role,
      formatNumber(tokens),
      formatPercent(tokens, total),
      preview(messageText(message), 60),
    ]);
  }
  return table(rows, [0, 2, 3]).map((line) => `  ${line}`);
}

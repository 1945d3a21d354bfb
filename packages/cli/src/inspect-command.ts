import { resolve } from 'node:path';
import type { Message, TokenCounter } from '@ctxmem/core';
import { BudgetExceededError, InvalidArgumentError, messageText, toolCallsOf } from '@ctxmem/core';
import {
  optionalString,
  parseArguments,
  parseCount,
  parseTokenCount,
  singleFile,
} from './arguments.js';
import { measureComposition, renderComposition } from './composition.js';
import type { BudgetPlan, CliDependencies } from './dependencies.js';
import { formatNumber, formatPercent, preview, table } from './format.js';
import { readConversation } from './read-conversation.js';
import { oneLine, renderStrategies } from './render-report.js';
import type { CliContext } from './run-cli.js';

/** The window assumed without --context-window or a known --model (gpt-4o's). */
export const DEFAULT_CONTEXT_WINDOW = 128_000;

export interface InspectCommandOptions {
  file: string;
  contextWindow?: number;
  model?: string;
  top: number;
}

export function parseInspectArguments(argv: readonly string[]): InspectCommandOptions {
  const { values, positionals } = parseArguments(argv, {
    'context-window': { type: 'string' },
    model: { type: 'string' },
    top: { type: 'string' },
  });
  const file = singleFile(positionals, 'inspect');
  const model = optionalString(values.model, '--model');
  return {
    file,
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
  const input = await readConversation(
    resolve(context.cwd, options.file),
    options.file,
    dependencies,
  );
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

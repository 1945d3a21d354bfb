import type { Message, TokenCounter } from '@ctxmem/core';
import { toolOutputText } from '@ctxmem/core/adapter-kit';
import { bar, formatNumber, formatPercent, table } from './format.js';

/** What the tokens of a prompt are spent on. */
export type CompositionCategory =
  | 'system'
  | 'summary'
  | 'toolCalls'
  | 'toolResults'
  | 'user'
  | 'assistant';

export type Composition = Record<CompositionCategory, number>;

export const COMPOSITION_LABELS: Readonly<Record<CompositionCategory, string>> = {
  system: 'system',
  summary: 'summary',
  toolCalls: 'tool calls',
  toolResults: 'tool results',
  user: 'user',
  assistant: 'assistant',
};

const CATEGORIES = Object.keys(COMPOSITION_LABELS) as CompositionCategory[];

export function emptyComposition(): Composition {
  return { system: 0, summary: 0, toolCalls: 0, toolResults: 0, user: 0, assistant: 0 };
}

/**
 * Splits each message's token count (`counter.countMessage`) across the categories: tool-call and
 * tool-result parts are measured on their own and the rest of the message (its text and overhead)
 * goes to the message's role. The categories add up to the sum of `countMessage`, so the
 * composition agrees with the prompt total minus `promptOverhead`.
 */
export function measureComposition(
  messages: readonly Message[],
  counter: TokenCounter,
): Composition {
  const composition = emptyComposition();
  for (const message of messages) {
    const total = counter.countMessage(message);
    const kind = message.ctxmem?.kind;
    if (kind === 'summary') {
      composition.summary += total;
      continue;
    }
    if (kind === 'tool-run-record') {
      // A record stands for a whole run of tool calls and their results.
      composition.toolCalls += total;
      continue;
    }
    if (message.role === 'tool') {
      composition.toolResults += total;
      continue;
    }
    if (message.role === 'system') {
      composition.system += total;
      continue;
    }
    let calls = 0;
    let results = 0;
    if (typeof message.content !== 'string') {
      for (const part of message.content) {
        if (part.type === 'tool-call') {
          calls +=
            counter.countText(part.toolName) + counter.countText(JSON.stringify(part.input) ?? '');
        } else if (part.type === 'tool-result') {
          results += counter.countText(toolOutputText(part.output));
        }
      }
    }
    // Parts are measured apart, so their sum can exceed the message's own count by a few
    // tokens of boundary effects; scale them down rather than report more than the message costs.
    const parts = calls + results;
    if (parts > total) {
      calls = Math.floor((calls / parts) * total);
      results = Math.floor((results / parts) * total);
    }
    composition.toolCalls += calls;
    composition.toolResults += results;
    composition[message.role === 'user' ? 'user' : 'assistant'] += total - calls - results;
  }
  return composition;
}

export function compositionTotal(composition: Composition): number {
  return CATEGORIES.reduce((sum, category) => sum + composition[category], 0);
}

export interface RenderCompositionOptions {
  /** Width of the longest bar in cells. @default 32 */
  width?: number;
}

/**
 * One line per category with a bar scaled to the largest total, before (and after, when given)
 * side by side, so the shift from tool results to summary is visible at a glance.
 */
export function renderComposition(
  before: Composition,
  after?: Composition,
  { width = 32 }: RenderCompositionOptions = {},
): string[] {
  const beforeTotal = compositionTotal(before);
  const afterTotal = after ? compositionTotal(after) : 0;
  const scale = Math.max(beforeTotal, afterTotal, 1);
  const halfWidth = after ? Math.floor(width / 2) : width;
  const header = after ? ['', 'before', '', '', 'after', '', ''] : ['', 'tokens', 'share', ''];
  const rows: string[][] = [header];
  for (const category of CATEGORIES) {
    const label = COMPOSITION_LABELS[category];
    const beforeCells = [
      formatNumber(before[category]),
      formatPercent(before[category], beforeTotal),
      bar(before[category], scale, halfWidth),
    ];
    rows.push(
      after
        ? [
            label,
            ...beforeCells,
            formatNumber(after[category]),
            formatPercent(after[category], afterTotal),
            bar(after[category], scale, halfWidth),
          ]
        : [label, ...beforeCells],
    );
  }
  rows.push(
    after
      ? ['total', formatNumber(beforeTotal), '', '', formatNumber(afterTotal), '', '']
      : ['total', formatNumber(beforeTotal), '', ''],
  );
  return table(rows, after ? [1, 2, 4, 5] : [1, 2]);
}

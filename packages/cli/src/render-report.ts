import type { CompactionReport } from '@ctxmem/core';
import { type Composition, renderComposition } from './composition.js';
import type { ConversationFormat, HistoryMode } from './dependencies.js';
import { formatNumber, oneLine, table } from './format.js';

export interface CompactReportView {
  file: string;
  format: ConversationFormat;
  counterName: string;
  summarizerName: string;
  history: HistoryMode;
  messagesBefore: number;
  messagesAfter: number;
  tokensBefore: number;
  /** `tokensBefore` and the composition before are lower bounds (a payload measured by its floor). */
  tokensBeforeIsLowerBound?: boolean;
  tokensAfter: number;
  /** The whole request's budget (`--budget`). */
  budgetTokens: number;
  /** Tokens of the body's tool definitions, counted within the budget. */
  toolTokens: number;
  report: CompactionReport;
  before: Composition;
  after: Composition;
  offloadIds: readonly string[];
  offloadDir: string;
  out: string | undefined;
  durationMs: number;
}

/** The human report `compact` prints on stderr. */
export function renderCompactReport(view: CompactReportView): string {
  const { report } = view;
  const lines = [
    `ctxmem compact ${view.file} (${view.format}, ${view.messagesBefore} messages, history ${view.history})`,
    `  tokens      ${view.tokensBeforeIsLowerBound ? '≥' : ''}${formatNumber(view.tokensBefore)} → ${formatNumber(view.tokensAfter)}  (budget ${formatNumber(view.budgetTokens)}${view.toolTokens > 0 ? ` incl. ${formatNumber(view.toolTokens)} of tool definitions` : ''}, target ${formatNumber(report.targetTokens + view.toolTokens)}, counted with ${view.counterName})`,
    `  messages    ${view.messagesBefore} → ${view.messagesAfter}`,
    `  summarizer  ${view.summarizerName}, ${report.summarizerCalls} call${report.summarizerCalls === 1 ? '' : 's'}${fallbackNote(report)}`,
    `  duration    compaction ${formatNumber(report.durationMs)} ms, total ${formatNumber(view.durationMs)} ms`,
    '',
  ];
  lines.push(...renderStrategies(report), '');
  lines.push('Window composition', ...renderComposition(view.before, view.after).map(indent));
  if (view.tokensBeforeIsLowerBound) {
    lines.push(
      '  (before: at least; a payload far over the budget was measured by a lower bound, not tokenized)',
    );
  }
  lines.push('');
  if (view.offloadIds.length > 0) {
    lines.push(
      `Offloaded ${view.offloadIds.length} payload${view.offloadIds.length === 1 ? '' : 's'} to ${view.offloadDir}; bring one back with: ctxmem reload <id> --offload-dir ${view.offloadDir}`,
    );
  }
  lines.push(view.out ? `Wrote ${view.out}` : 'Wrote the compacted conversation to stdout');
  return `${lines.join('\n')}\n`;
}

export function renderStrategies(report: CompactionReport): string[] {
  if (report.strategies.length === 0) {
    return [
      `No strategy ran: ${formatNumber(report.tokensBefore)} tokens are already at or under the target of ${formatNumber(report.targetTokens)}.`,
    ];
  }
  const rows = [['strategy', 'applied', 'before', 'after', 'saved', 'messages', 'calls', 'ms']];
  for (const strategy of report.strategies) {
    rows.push([
      strategy.strategy,
      strategy.applied ? 'yes' : '-',
      formatNumber(strategy.tokensBefore),
      formatNumber(strategy.tokensAfter),
      formatNumber(strategy.tokensBefore - strategy.tokensAfter),
      String(strategy.messagesAffected),
      String(strategy.summarizerCalls),
      formatNumber(strategy.durationMs),
    ]);
  }
  return ['Strategies', ...table(rows, [2, 3, 4, 5, 6, 7]).map(indent)];
}

function fallbackNote(report: CompactionReport): string {
  const fallback = report.strategies.find((strategy) => strategy.fallback)?.fallback;
  return fallback ? ` (fell back from ${fallback.from}: ${oneLine(fallback.reason)})` : '';
}

function indent(line: string): string {
  return `  ${line}`;
}

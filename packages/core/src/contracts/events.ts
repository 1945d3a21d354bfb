import type { CompactionReport, StrategyReport } from './compression.js';
import type { Scope } from './scope.js';

/** Events reported to `onEvent`. Message content is never included. */
export type CtxmemEvent =
  | { type: 'compaction'; scope: Scope; report: CompactionReport }
  | { type: 'strategy'; scope: Scope; report: StrategyReport }
  | { type: 'summarizer-fallback'; scope: Scope; from: string; reason: string }
  | { type: 'memory-injection'; scope: Scope; cards: number; tokens: number }
  | { type: 'memory-flush'; scope: Scope; stored: number; skipped: boolean; error?: string }
  /** The input history's tool calls and results did not pair up and were repaired for the prompt. */
  | { type: 'input-repaired'; scope: Scope; repairs: string[] };

export type EventListener = (event: CtxmemEvent) => void;

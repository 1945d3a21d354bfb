import type { CompactionReport, CompactionTrigger, StrategyReport } from './compression.js';
import type { Scope } from './scope.js';
import type { SummarizerFailureKind } from './summarizer.js';

/** Events reported to `onEvent`. Message content is never included. */
export type CtxmemEvent =
  /**
   * A compaction begins (its prompt is over the target, or it is forced): `compaction` follows
   * when it is done, unless it fails. A model summarizer can take seconds in between.
   */
  | {
      type: 'compaction-start';
      scope: Scope;
      trigger: CompactionTrigger;
      tokensBefore: number;
      budgetTokens: number;
      targetTokens: number;
    }
  | { type: 'compaction'; scope: Scope; report: CompactionReport }
  | { type: 'strategy'; scope: Scope; report: StrategyReport }
  /**
   * A summarizer failed and a fallback took over. `reason` is its failure in words (it can quote
   * the conversation or a provider's message); `kind` is the same as a word-free kind, when known.
   */
  | {
      type: 'summarizer-fallback';
      scope: Scope;
      from: string;
      reason: string;
      kind?: SummarizerFailureKind;
    }
  | { type: 'memory-injection'; scope: Scope; cards: number; tokens: number }
  | { type: 'memory-flush'; scope: Scope; stored: number; skipped: boolean; error?: string }
  /** The input history's tool calls and results did not pair up and were repaired for the prompt. */
  | { type: 'input-repaired'; scope: Scope; repairs: string[] }
  /**
   * The provider rejected a request as too long. `retrying`: ctxmem prepares it again, smaller
   * (at `ratio` provider tokens per counted token), and sends it once more; `rejected-again`: the
   * retry was rejected too; `cannot-fit`: at the provider's count not even the system messages
   * and the newest user message fit, so nothing is sent again. The last two fail the call with
   * `ContextOverflowError`. Counts are ctxmem's (`countedTokens`: of the rejected request) and
   * the provider's, when its error said.
   */
  | {
      type: 'context-overflow';
      scope: Scope;
      outcome: 'retrying' | 'rejected-again' | 'cannot-fit';
      countedTokens: number;
      providerTokens?: number;
      limitTokens?: number;
      ratio: number;
    };

export type EventListener = (event: CtxmemEvent) => void;

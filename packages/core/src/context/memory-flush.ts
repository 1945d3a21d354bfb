import type { Span } from '@opentelemetry/api';
import type { EventListener, Message, Scope, TokenCounter } from '../contracts/index.js';
import { flushThresholdTokens, requestFlushNotes, writeFlushNotes } from '../flush/index.js';
import type { Telemetry } from '../telemetry/index.js';
import type { FlushOptions } from './context-manager-types.js';
import type { MemoryInjection } from './memory-injection.js';
import type { SessionState } from './session-state.js';
import { errorText, withTimeout } from './with-timeout.js';

export interface MemoryFlushOptions {
  /** @default undefined (no flush) */
  flush?: FlushOptions;
  contextWindow: number;
  /** Where compaction starts: the flush runs a little before it. */
  triggerTokens: number;
  counter: TokenCounter;
  memories: Pick<MemoryInjection, 'memoryScope' | 'storeCards'>;
  /** Keeps the background run so `idle()` can wait for it. */
  track: (run: Promise<unknown>) => void;
  /** @default undefined */
  onEvent?: EventListener;
  /** Runs each flush in a `ctxmem.memory_flush` span. @default undefined (off) */
  telemetry?: Telemetry;
}

/**
 * The silent memory-flush turn: once per compaction cycle, when the prompt nears the trigger, the
 * model is asked in the background for notes worth keeping before the history is summarized away.
 */
export function createMemoryFlush({
  flush,
  contextWindow,
  triggerTokens,
  counter,
  memories,
  track,
  onEvent,
  telemetry,
}: MemoryFlushOptions) {
  /** Prompts of at least this many tokens start a flush. */
  const thresholdTokens = flush
    ? flushThresholdTokens({
        contextWindow,
        triggerTokens,
        ...(flush.reserveFloor === undefined ? {} : { reserveFloor: flush.reserveFloor }),
        ...(flush.softThreshold === undefined ? {} : { softThreshold: flush.softThreshold }),
      })
    : Number.POSITIVE_INFINITY;

  /** Starts the flush of this cycle in the background, unless it already ran. */
  function start(scope: Scope, messages: readonly Message[], state: SessionState, cycle: number) {
    if (!flush || state.flushedCycle === cycle) return;
    state.flushedCycle = cycle;
    const flushNotes = async (span?: Span) => {
      try {
        const notes = await withTimeout(
          (abortSignal) =>
            requestFlushNotes({
              complete: flush.complete,
              messages,
              counter,
              maxInputTokens: Math.floor(contextWindow * 0.5),
              source: 'memory-flush',
              abortSignal,
            }),
          flush.timeoutMs ?? 30_000,
        );
        if (!notes) {
          span?.setAttributes({ 'ctxmem.memory_flush.skipped': true });
          onEvent?.({ type: 'memory-flush', scope, stored: 0, skipped: true });
          return;
        }
        if (flush.root) {
          await writeFlushNotes({ root: flush.root, scope: memories.memoryScope(scope), notes });
        }
        await memories.storeCards(scope, notes.longTerm);
        span?.setAttributes({
          'ctxmem.memory_flush.skipped': false,
          'ctxmem.memory_flush.long_term': notes.longTerm.length,
          'ctxmem.memory_flush.daily': notes.daily.length,
        });
        onEvent?.({
          type: 'memory-flush',
          scope,
          stored: notes.longTerm.length + notes.daily.length,
          skipped: false,
        });
      } catch (error) {
        // A failed silent turn is logged, never shown to the user, never blocks the turn.
        if (span) telemetry?.recordError(span, error);
        onEvent?.({
          type: 'memory-flush',
          scope,
          stored: 0,
          skipped: true,
          error: errorText(error),
        });
      }
    };
    const run = telemetry
      ? telemetry.span(
          'ctxmem.memory_flush',
          { 'ctxmem.memory_flush.cycle': cycle, ...telemetry.scopeAttributes(scope) },
          flushNotes,
        )
      : flushNotes();
    track(run);
  }

  return { thresholdTokens, start };
}

import { type CtxmemEvent, InvalidArgumentError, type Scope } from '@ctxmem/core';
import { checkScope } from '@ctxmem/core/adapter-kit';
import type { CtxmemDataChunk } from './data-parts.js';
import type { ContextEventSource } from './scoped-events.js';

/**
 * What the status is written to: a UI message stream's `writer` (`createUIMessageStream`'s, from
 * AI SDK 6 or 7), whose message type includes `CtxmemDataParts` or takes any data part.
 */
export interface ContextStatusWriter {
  write(part: CtxmemDataChunk): void;
}

export interface ContextStatusOptions {
  /** Where the conversation's events come from: the `contextMemoryMiddleware` of the model. */
  events: ContextEventSource;
  /**
   * The conversation this request is for: the scope its calls give ctxmem (`providerOptions.ctxmem`
   * or the middleware's `scope`). Only its events are written.
   */
  scope: Scope;
}

/** A request's status writing, started by `writeContextStatus`. */
export interface ContextStatus {
  /** Stops writing; later events are not written. Idempotent. */
  stop(): void;
  /**
   * Passes `stream` through (the model's UI message stream, to `writer.merge`) and stops writing
   * the status when it ends or is cancelled: the status lives as long as the answer.
   */
  stopAfter<Chunk>(stream: ReadableStream<Chunk>): ReadableStream<Chunk>;
}

/** The id of the memories part: one part per message, updated at each step. */
const MEMORIES_PART_ID = 'ctxmem-memories';

/**
 * Writes the conversation's ctxmem events into a UI message stream as typed data parts, so a
 * `useChat` app can show "compacting… / compacted 48k → 9k / 3 memories used":
 *
 * - `data-ctxmem-compaction`: `state: 'started'` when a compaction begins (transient: a moment,
 *   seen in `onData`, not kept in the message, so a compaction that outlives the request leaves
 *   nothing stale behind), then `state: 'finished'` with the tokens before and after, kept in the
 *   message. Both have the same `id`, one per compaction.
 * - `data-ctxmem-summarizer-fallback`: the summarizer failed and the offline summary was used
 *   (transient).
 * - `data-ctxmem-memories`: memories injected, kept in the message; one part (`id`
 *   `ctxmem-memories`) updated at each step of a tool loop.
 *
 * Subscribe before the model call starts (call this before `streamText`), and stop when the
 * answer ends: `writer.merge(status.stopAfter(result.toUIMessageStream()))`. Only the events of
 * `scope` are written: concurrent requests of other conversations never show here. Parts carry
 * counts and names, never message text.
 */
export function writeContextStatus(
  writer: ContextStatusWriter,
  { events, scope }: ContextStatusOptions,
): ContextStatus {
  if (typeof writer?.write !== 'function') {
    throw new InvalidArgumentError({
      message: 'writeContextStatus needs a UI message stream writer (with write)',
      argument: 'writer',
    });
  }
  if (typeof events?.subscribe !== 'function') {
    throw new InvalidArgumentError({
      message: 'events must be the context memory middleware (or an object with subscribe)',
      argument: 'events',
    });
  }
  checkScope(scope);
  let compactions = 0;
  /** Compactions started and not finished yet, oldest first. */
  const open: string[] = [];

  function write(event: CtxmemEvent): void {
    switch (event.type) {
      case 'compaction-start': {
        const id = `ctxmem-compaction-${++compactions}`;
        open.push(id);
        writer.write({
          type: 'data-ctxmem-compaction',
          id,
          transient: true,
          data: {
            state: 'started',
            trigger: event.trigger,
            tokensBefore: event.tokensBefore,
            budgetTokens: event.budgetTokens,
          },
        });
        return;
      }
      case 'compaction': {
        const { report } = event;
        writer.write({
          type: 'data-ctxmem-compaction',
          id: open.shift() ?? `ctxmem-compaction-${++compactions}`,
          data: {
            state: 'finished',
            trigger: report.trigger,
            tokensBefore: report.tokensBefore,
            tokensAfter: report.tokensAfter,
            budgetTokens: report.budgetTokens,
            strategies: report.strategies
              .filter((strategy) => strategy.applied)
              .map((strategy) => strategy.strategy),
            summarizerCalls: report.summarizerCalls,
            durationMs: Math.round(report.durationMs),
          },
        });
        return;
      }
      case 'summarizer-fallback':
        writer.write({
          type: 'data-ctxmem-summarizer-fallback',
          transient: true,
          data: { from: event.from, ...(event.kind ? { kind: event.kind } : {}) },
        });
        return;
      case 'memory-injection':
        // A failed search reports zero cards: nothing was used, nothing to show.
        if (event.cards === 0) return;
        writer.write({
          type: 'data-ctxmem-memories',
          id: MEMORIES_PART_ID,
          data: { cards: event.cards, tokens: event.tokens },
        });
        return;
      default:
        return;
    }
  }

  const unsubscribe = events.subscribe(scope, write);
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    unsubscribe();
  };

  return {
    stop,
    stopAfter<Chunk>(stream: ReadableStream<Chunk>): ReadableStream<Chunk> {
      const reader = stream.getReader();
      return new ReadableStream<Chunk>({
        async pull(controller) {
          try {
            const { done, value } = await reader.read();
            if (done) {
              stop();
              controller.close();
            } else {
              controller.enqueue(value);
            }
          } catch (error) {
            stop();
            controller.error(error);
          }
        },
        async cancel(reason) {
          stop();
          await reader.cancel(reason);
        },
      });
    },
  };
}

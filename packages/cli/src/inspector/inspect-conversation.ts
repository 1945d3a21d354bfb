import {
  type CtxmemEvent,
  createContextManager,
  createExtractiveSummarizer,
  type MemorySearcher,
  type MemorySearchHit,
  type Message,
  NotFoundError,
  type OffloadStore,
  type PrepareResult,
  type ReserveOptions,
  type Scope,
  type TokenCounter,
} from '@ctxmem/core';
import {
  createCallRecord,
  labelledMessageText,
  quoteMemoryContent,
} from '@ctxmem/core/adapter-kit';
import { clip, inspectMessage } from './describe-message.js';
import { inspectCallRecord } from './inspect-call-record.js';
import type {
  InspectedCall,
  InspectedMemoryCard,
  InspectedOffload,
  Inspection,
} from './inspection.js';
import { diffSummaries } from './summary-diff.js';

export interface InspectConversationOptions {
  /** The original history, oldest first. */
  messages: readonly Message[];
  counter: TokenCounter;
  contextWindow: number;
  /** The output reserve, as the context manager takes it. @default the manager's default */
  reserve?: ReserveOptions;
  /** Tool definitions every call carries. @default [] */
  tools?: readonly unknown[];
  /** Whose conversation it is: sets where memories are searched (see `defaultMemoryScope`). @default {} */
  scope?: Scope;
  /** Searched for memories to inject on every call, as the context manager does. @default none */
  memorySearch?: MemorySearcher;
  title: string;
  /** @default [] */
  notes?: readonly string[];
  /** Characters of each prompt message shown per call. @default 4000 */
  maxMessageChars?: number;
  /** Characters of each offloaded original shown. @default 200000 */
  maxOriginalChars?: number;
}

/**
 * The points where a model was called: after each message that an assistant message answers,
 * and at the end when the history does not end with the assistant's reply.
 */
export function callPoints(messages: readonly Message[]): number[] {
  const points: number[] = [];
  for (let index = 0; index < messages.length; index++) {
    if (messages[index]!.role === 'assistant') continue;
    const next = messages[index + 1];
    if (next === undefined || next.role === 'assistant') points.push(index + 1);
  }
  if (points.length === 0 && messages.length > 0) points.push(messages.length);
  return points;
}

/**
 * Replays a history call by call through the context manager (in-memory stores, the extractive
 * summarizer, so nothing is written and no model is called) and records what each call's prompt
 * held: the compactions, the window's composition, the rolling summary, the offloaded payloads
 * and the injected memories. The decisions are core's: the inspector only watches.
 */
export async function inspectConversation({
  messages,
  counter,
  contextWindow,
  reserve,
  tools = [],
  scope = {},
  memorySearch,
  title,
  notes = [],
  maxMessageChars = 4_000,
  maxOriginalChars = 200_000,
}: InspectConversationOptions): Promise<Inspection> {
  let events: CtxmemEvent[] = [];
  let hits: MemorySearchHit[] = [];
  const recordingSearch: MemorySearcher | undefined = memorySearch && {
    search: async (searchScope, query, searchOptions) => {
      hits = await memorySearch.search(searchScope, query, searchOptions);
      return hits;
    },
  };
  const summarizer = createExtractiveSummarizer({ counter });
  const manager = createContextManager({
    contextWindow,
    counter,
    summarizer,
    summarizerCircuitBreaker: false,
    ...(reserve ? { reserve } : {}),
    ...(recordingSearch ? { memory: { search: recordingSearch } } : {}),
    onEvent: (event) => events.push(event),
  });

  const calls: InspectedCall[] = [];
  const offloads = new Map<string, InspectedOffload>();
  let previousSummary: string | undefined;
  /** The call that first showed each message (role, kind and text). */
  const shown = new Map<string, number>();
  for (const end of callPoints(messages)) {
    events = [];
    hits = [];
    const result = await manager.prepare(messages.slice(0, end), {
      scope,
      ...(tools.length > 0 ? { tools } : {}),
    });
    const number = calls.length + 1;
    const summaryMessage = result.messages.find((message) => message.ctxmem?.kind === 'summary');
    const summary = summaryMessage ? labelledMessageText(summaryMessage) : undefined;
    const summaryChanged = summary !== previousSummary;
    const cards = memoryCards(result, hits);
    // The record the context manager would store for this call, so a replayed call and a recorded
    // one are described by the same code.
    const record = createCallRecord({
      historyMessages: end,
      tokensBefore: result.report?.tokensBefore ?? result.tokens,
      messages: result.messages,
      tokens: result.tokens,
      budget: result.budget,
      toolTokens: result.budget.fixedTokens,
      reservedTokens: 0,
      ...(result.compacted && result.report
        ? {
            compaction: { source: 'compacted', report: result.report, summarizer: summarizer.name },
          }
        : {}),
      memories: cards.filter((card) => card.injected),
      repairs: events.flatMap((event) => (event.type === 'input-repaired' ? event.repairs : [])),
      counter,
    });
    calls.push(
      inspectCallRecord(record, number, 'replay', {
        fallbackReasons: events.flatMap((event) =>
          event.type === 'summarizer-fallback' ? [event.reason] : [],
        ),
        ...(summary !== undefined ? { summary } : {}),
        summaryDiff: summaryChanged ? diffSummaries(previousSummary, summary) : [],
        summaryChanged,
        memoryCards: cards,
        messages: result.messages.map((message) => {
          const inspected = inspectMessage(message, counter.countMessage(message), maxMessageChars);
          const key = `${inspected.role}\u0000${inspected.kind ?? ''}\u0000${labelledMessageText(message)}`;
          const shownInCall = shown.get(key);
          if (shownInCall === undefined) {
            shown.set(key, number);
            return inspected;
          }
          return { ...inspected, text: '', omittedChars: 0, shownInCall };
        }),
      }),
    );
    previousSummary = summary;
    await collectOffloads(result, number, manager.offloadStore, scope, offloads, {
      counter,
      maxOriginalChars,
    });
  }
  return {
    title,
    notes: [...notes],
    counter: counter.name,
    calls,
    offloads: [...offloads.values()],
  };
}

function memoryCards(result: PrepareResult, hits: readonly MemorySearchHit[]) {
  if (hits.length === 0) return [];
  const block = result.messages.find((message) => message.ctxmem?.kind === 'memory-injection');
  const text = block ? labelledMessageText(block) : '';
  return hits.map(
    ({ card, score }): InspectedMemoryCard => ({
      id: card.id,
      type: card.type,
      content: card.content,
      score,
      injected: text.includes(JSON.stringify(quoteMemoryContent(card.content))),
    }),
  );
}

async function collectOffloads(
  result: PrepareResult,
  call: number,
  store: OffloadStore,
  scope: Scope,
  offloads: Map<string, InspectedOffload>,
  options: { counter: TokenCounter; maxOriginalChars: number },
): Promise<void> {
  const previews = new Map<string, Message>();
  for (const message of result.messages) {
    for (const id of message.ctxmem?.offloadIds ?? []) previews.set(id, message);
  }
  const written = result.report?.strategies.flatMap((strategy) => strategy.offloadIds ?? []) ?? [];
  for (const id of [...previews.keys(), ...written]) {
    if (offloads.has(id)) continue;
    offloads.set(id, await readOffload(store, scope, id, call, previews.get(id), options));
  }
}

/** One offloaded payload with its original, or why the original is missing. */
export async function readOffload(
  store: OffloadStore,
  scope: Scope,
  id: string,
  firstCall: number,
  preview: Message | undefined,
  { counter, maxOriginalChars }: { counter: TokenCounter; maxOriginalChars: number },
): Promise<InspectedOffload> {
  const previewText = preview ? labelledMessageText(preview) : '(not in the prompt)';
  try {
    const record = await store.get(scope, id);
    const { text, omittedChars } = clip(labelledMessageText(record.message), maxOriginalChars);
    return {
      id,
      firstCall,
      role: record.message.role,
      preview: previewText,
      original: text,
      omittedChars,
      originalTokens: counter.countMessage(record.message),
    };
  } catch (error) {
    if (!NotFoundError.isInstance(error)) throw error;
    return {
      id,
      firstCall,
      role: preview?.role ?? 'unknown',
      preview: previewText,
      original: '',
      omittedChars: 0,
      originalTokens: 0,
      missing: `not found in the offload store (${error.message})`,
    };
  }
}

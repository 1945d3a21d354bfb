import type {
  CallCompactionSource,
  CallRecord,
  HistoryStore,
  MemoryCard,
  MemorySearcher,
  MemoryStore,
  Message,
  OffloadStore,
  ReserveOptions,
  Scope,
  TokenCounter,
  WorkingState,
} from '@ctxmem/core';
import { defaultMemoryScope, NotFoundError, renderSummary } from '@ctxmem/core';
import { inspectMessage } from './describe-message.js';
import { inspectConversation, readOffload } from './inspect-conversation.js';
import type { InspectedCall, InspectedOffload, Inspection } from './inspection.js';
import { diffSummaries } from './summary-diff.js';

export interface InspectSessionOptions {
  /** The session's original history and working state. */
  historyStore: HistoryStore;
  /** Where the session's offloaded payloads are. */
  offloadStore: OffloadStore;
  scope: Scope;
  counter: TokenCounter;
  /** The window of the replay, for sessions stored without call records. */
  contextWindow: number;
  /** @default the manager's default */
  reserve?: ReserveOptions;
  /** Searched during the replay (sessions without call records). @default none */
  memorySearch?: MemorySearcher;
  /**
   * Where the cards recorded calls injected are looked up by id, to show their content.
   * @default none (recorded cards are shown by id and score)
   */
  memoryStore?: MemoryStore;
  title: string;
  /** @default [] */
  notes?: readonly string[];
}

const MAX_ORIGINAL_CHARS = 200_000;

/**
 * A stored session. When the context manager recorded its calls (`WorkingState.calls`), the
 * timeline shows those calls as they were prepared; a session stored before call records existed
 * is replayed call by call from its original history instead. Either way the working state and
 * the offloads are shown as the store holds them. Reads only: nothing is written.
 */
export async function inspectSession({
  historyStore,
  offloadStore,
  scope,
  counter,
  contextWindow,
  reserve,
  memorySearch,
  memoryStore,
  title,
  notes = [],
}: InspectSessionOptions): Promise<Inspection> {
  const history = await historyStore.read(scope);
  const state = await historyStore.getState(scope);
  const inspection =
    state?.calls && state.calls.length > 0
      ? await inspectRecordedCalls(state, state.calls, history.length, {
          offloadStore,
          ...(memoryStore ? { memoryStore } : {}),
          scope,
          counter,
          title,
          notes,
        })
      : await inspectConversation({
          messages: history.map((stored) => stored.message),
          counter,
          contextWindow,
          scope,
          ...(reserve ? { reserve } : {}),
          ...(memorySearch ? { memorySearch } : {}),
          title,
          notes: [
            ...notes,
            `The timeline replays the ${history.length} stored messages call by call with the extractive summarizer (this session was stored without call records); the recorded state is at the end.`,
          ],
        });
  if (!state) return inspection;
  const offloads = [...inspection.offloads];
  const known = new Set(offloads.map((offload) => offload.id));
  for (const message of state.messages) {
    for (const id of message.ctxmem?.offloadIds ?? []) {
      if (known.has(id)) continue;
      known.add(id);
      offloads.push(
        await readOffload(offloadStore, scope, id, 0, message, {
          counter,
          maxOriginalChars: MAX_ORIGINAL_CHARS,
        }),
      );
    }
  }
  return {
    ...inspection,
    offloads,
    recorded: {
      version: state.version,
      cycle: state.cycle,
      summarizedCount: state.summarizedCount,
      historyMessages: history.length,
      ...(state.summary ? { summary: renderSummary(state.summary) } : {}),
      messages: state.messages.map((message) =>
        inspectMessage(message, counter.countMessage(message), 4_000),
      ),
    },
  };
}

/** The timeline of the calls the context manager recorded, with the offloads they refer to. */
async function inspectRecordedCalls(
  state: WorkingState,
  records: readonly CallRecord[],
  historyMessages: number,
  {
    offloadStore,
    memoryStore,
    scope,
    counter,
    title,
    notes,
  }: {
    offloadStore: OffloadStore;
    memoryStore?: MemoryStore;
    scope: Scope;
    counter: TokenCounter;
    title: string;
    notes: readonly string[];
  },
): Promise<Inspection> {
  // The stored summary is the one the latest compaction wrote: shown at the last recorded
  // compaction (records carry no summaries, to stay small).
  const lastCompaction = records.findLastIndex((record) => record.compaction !== undefined);
  const summary = state.summary ? renderSummary(state.summary) : undefined;
  const cards = memoryStore ? await readCards(memoryStore, scope, records) : new Map();
  const calls = records.map((record, index) =>
    toInspectedCall(record, index + 1, index === lastCompaction ? summary : undefined, cards),
  );
  const offloads = new Map<string, InspectedOffload>();
  const previews = previewsOf(state.messages);
  for (const call of calls) {
    const record = records[call.number - 1]!;
    for (const id of [...record.offloadIds, ...(record.compaction?.offloadIds ?? [])]) {
      if (offloads.has(id)) continue;
      offloads.set(
        id,
        await readOffload(offloadStore, scope, id, call.number, previews.get(id), {
          counter,
          maxOriginalChars: MAX_ORIGINAL_CHARS,
        }),
      );
    }
  }
  const last = records.at(-1)!;
  const later = historyMessages - last.historyMessages;
  return {
    title,
    notes: [
      ...notes,
      `The timeline shows the last ${records.length} calls as ctxmem recorded them when it prepared them (${last.at}); the prompts themselves are not stored, their composition is.`,
      ...(later > 0
        ? [
            `${later} later messages of the history arrived after the last recorded call: calls are written with the working state at each compaction, so the calls since the latest one are not stored yet.`,
          ]
        : []),
    ],
    counter: counter.name,
    timeline: 'recorded',
    calls,
    offloads: [...offloads.values()],
  };
}

function previewsOf(messages: readonly Message[]): Map<string, Message> {
  const previews = new Map<string, Message>();
  for (const message of messages) {
    for (const id of message.ctxmem?.offloadIds ?? []) previews.set(id, message);
  }
  return previews;
}

/**
 * The recorded cards by id, from the memory store (in the session's default memory scope); a card
 * removed since is left out, and shown by id.
 */
async function readCards(
  store: MemoryStore,
  scope: Scope,
  records: readonly CallRecord[],
): Promise<Map<string, MemoryCard>> {
  const cards = new Map<string, MemoryCard>();
  const ids = new Set(records.flatMap((record) => record.memories.map((memory) => memory.id)));
  for (const id of ids) {
    try {
      cards.set(id, await store.get(defaultMemoryScope(scope), id));
    } catch (error) {
      if (!NotFoundError.isInstance(error)) throw error;
    }
  }
  return cards;
}

function toInspectedCall(
  record: CallRecord,
  number: number,
  summary: string | undefined,
  cards: ReadonlyMap<string, MemoryCard>,
): InspectedCall {
  const { composition, compaction } = record;
  const fallbacks = (compaction?.strategies ?? []).flatMap((strategy) =>
    strategy.fallback
      ? [
          `${strategy.fallback.from} failed (its reason is in the summarizer-fallback event, not stored)`,
        ]
      : [],
  );
  return {
    number,
    historyMessages: record.historyMessages,
    tokens: record.tokens,
    contextWindow: record.budget.contextWindow,
    budgetTokens: record.budget.budgetTokens,
    triggerTokens: record.budget.triggerTokens,
    composition: {
      system: composition.system,
      summary: composition.summary,
      memories: composition.memories,
      history: composition.history,
      compressed: composition.compressed,
      toolResults: composition.toolResults,
      // The page draws what the caller reserves around the messages with the tool definitions:
      // both are fixed parts of the request outside the messages.
      toolDefinitions: composition.toolDefinitions + composition.reserved,
      outputReserve: composition.outputReserve,
    },
    ...(compaction
      ? {
          compaction: {
            trigger:
              compaction.trigger === undefined
                ? COMPACTION_SOURCES[compaction.source]!
                : compaction.source === 'compacted'
                  ? compaction.trigger
                  : `${compaction.trigger}, ${COMPACTION_SOURCES[compaction.source]}`,
            tokensBefore: record.tokensBefore,
            tokensAfter: record.tokens,
            budgetTokens: record.budget.budgetTokens,
            targetTokens: record.budget.targetTokens,
            summarizerCalls: compaction.summarizerCalls,
            strategies: compaction.strategies.map(({ fallback, ...strategy }) => ({
              ...strategy,
              ...(fallback ? { fallback: { from: fallback.from, reason: 'not stored' } } : {}),
            })),
          },
          ...(compaction.summarizerCalls > 0 ? { summarizer: compaction.summarizer } : {}),
        }
      : {}),
    fallbacks,
    ...(summary !== undefined ? { summary } : {}),
    summaryDiff: summary !== undefined ? diffSummaries(undefined, summary) : [],
    summaryChanged: summary !== undefined,
    memoryCards: record.memories.map((memory) => {
      const card = cards.get(memory.id);
      return {
        id: memory.id,
        type: card?.type ?? 'card',
        content: card?.content ?? '(recorded by id: pass --memory-store to show the card)',
        score: memory.score,
        injected: true,
      };
    }),
    messages: [],
  };
}

const COMPACTION_SOURCES: Readonly<Record<CallCompactionSource, string>> = {
  compacted: 'compacted',
  background: 'adopted from the background',
  stored: 'adopted from another instance',
  reused: 'reused',
  'offline-while-leased': 'compacted offline (another instance held the compaction lease)',
};

import type {
  CallRecord,
  HistoryStore,
  MemoryCard,
  MemorySearcher,
  MemoryStore,
  Message,
  OffloadStore,
  ReserveOptions,
  Scope,
  StoredMessage,
  TokenCounter,
  WorkingState,
} from '@ctxmem/core';
import { defaultMemoryScope, NotFoundError, renderSummary } from '@ctxmem/core';
import { reconstructCallRecords } from '@ctxmem/core/adapter-kit';
import { inspectMessage } from './describe-message.js';
import { inspectCallRecord } from './inspect-call-record.js';
import { callPoints, inspectConversation, readOffload } from './inspect-conversation.js';
import type { InspectedMemoryCard, InspectedOffload, Inspection } from './inspection.js';
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
      ? await inspectRecordedCalls(state, state.calls, history, {
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
            `The timeline replays the ${history.length} stored messages call by call with the extractive summarizer (no call records are stored: the session has not been compacted yet, or was stored before records existed); the recorded state is at the end.`,
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

/**
 * The timeline of the calls the context manager recorded, followed by the calls made since the
 * latest stored compaction, rebuilt from the stored history and working state (their records are
 * written with the next compaction), with the offloads they refer to.
 */
async function inspectRecordedCalls(
  state: WorkingState,
  records: readonly CallRecord[],
  history: readonly StoredMessage[],
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
  const calls = records.map((record, index) => {
    const shown = index === lastCompaction ? summary : undefined;
    return inspectCallRecord(record, index + 1, 'recorded', {
      ...(shown !== undefined ? { summary: shown } : {}),
      summaryDiff: shown !== undefined ? diffSummaries(undefined, shown) : [],
      summaryChanged: shown !== undefined,
      memoryCards: recordedCards(record, cards),
      messages: [],
    });
  });
  const ends = callPoints(history.map((stored) => stored.message));
  const reconstructed = reconstructCallRecords({ state, history, ends, counter });
  const later = ends.filter((end) => end > records.at(-1)!.historyMessages).length;
  const overBudget = reconstructed.filter(
    (record) => record.tokens > record.budget.budgetTokens,
  ).length;
  let previousEnd = records.at(-1)!.historyMessages;
  for (const record of reconstructed) {
    const from = Math.max(previousEnd, state.summarizedCount);
    calls.push(
      inspectCallRecord(record, calls.length + 1, 'reconstructed', {
        summaryDiff: [],
        summaryChanged: false,
        memoryCards: [],
        // The stored working messages are shown once, with the recorded state; each rebuilt call
        // shows the history messages it added, so the page grows with the history, not calls × window.
        messages: history
          .slice(from, record.historyMessages)
          .map(({ message }) => inspectMessage(message, counter.countMessage(message), 4_000)),
      }),
    );
    previousEnd = record.historyMessages;
  }
  const offloads = new Map<string, InspectedOffload>();
  const previews = previewsOf(state.messages);
  for (const [index, record] of records.entries()) {
    for (const id of [...record.offloadIds, ...(record.compaction?.offloadIds ?? [])]) {
      if (offloads.has(id)) continue;
      offloads.set(
        id,
        await readOffload(offloadStore, scope, id, index + 1, previews.get(id), {
          counter,
          maxOriginalChars: MAX_ORIGINAL_CHARS,
        }),
      );
    }
  }
  const last = records.at(-1)!;
  return {
    title,
    notes: [
      ...notes,
      `The timeline shows the last ${records.length} calls as ctxmem recorded them when it prepared them (up to ${last.at}); the prompts themselves are not stored, their composition is.`,
      ...(reconstructed.length > 0
        ? [
            `The ${reconstructed.length} calls after the latest stored compaction are reconstructed (their records are written with the next compaction): each is the stored working messages followed by the history after them, with the last recorded call's budget; memories injected at those calls are not known and not counted.`,
          ]
        : []),
      ...(overBudget > 0
        ? [
            `${overBudget} reconstructed calls exceed their budget: those calls were compacted without a stored write (another instance held the compaction lease), and the reconstruction shows the prompt before that compaction.`,
          ]
        : []),
      ...(later > reconstructed.length
        ? [
            `${later - reconstructed.length} calls after the latest recorded one cannot be rebuilt: the stored working state does not match the stored history.`,
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

/** The cards a recorded call injected, with their content when the memory store still has them. */
function recordedCards(
  record: CallRecord,
  cards: ReadonlyMap<string, MemoryCard>,
): InspectedMemoryCard[] {
  return record.memories.map((memory) => {
    const card = cards.get(memory.id);
    return {
      id: memory.id,
      type: card?.type ?? 'card',
      content: card?.content ?? '(recorded by id: pass --memory-store to show the card)',
      score: memory.score,
      injected: true,
    };
  });
}

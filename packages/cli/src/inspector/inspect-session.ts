import {
  createFileHistoryStore,
  createFileOffloadStore,
  type MemorySearcher,
  type ReserveOptions,
  renderSummary,
  type Scope,
  type TokenCounter,
} from '@ctxmem/core';
import { inspectMessage } from './describe-message.js';
import { inspectConversation, readOffload } from './inspect-conversation.js';
import type { Inspection } from './inspection.js';

export interface InspectSessionOptions {
  /** The file store's folder (history, working state and offloads share it). */
  root: string;
  scope: Scope;
  counter: TokenCounter;
  contextWindow: number;
  /** @default the manager's default */
  reserve?: ReserveOptions;
  memorySearch?: MemorySearcher;
  title: string;
  /** @default [] */
  notes?: readonly string[];
}

/**
 * A stored session: its working state and offloads as the store recorded them, and a call-by-call
 * replay of its original history (the store keeps the latest state, not every call's prompt).
 * Opens the stores in strict mode so reading never rewrites a damaged file.
 */
export async function inspectSession({
  root,
  scope,
  counter,
  contextWindow,
  reserve,
  memorySearch,
  title,
  notes = [],
}: InspectSessionOptions): Promise<Inspection> {
  const historyStore = createFileHistoryStore({ root, corruption: 'strict' });
  const offloadStore = createFileOffloadStore({ root, corruption: 'strict' });
  const history = await historyStore.read(scope);
  const state = await historyStore.getState(scope);
  const inspection = await inspectConversation({
    messages: history.map((stored) => stored.message),
    counter,
    contextWindow,
    scope,
    ...(reserve ? { reserve } : {}),
    ...(memorySearch ? { memorySearch } : {}),
    title,
    notes: [
      ...notes,
      `The timeline replays the ${history.length} stored messages call by call with the extractive summarizer (the store keeps the latest working state, not each call's prompt); the recorded state is at the end.`,
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
          maxOriginalChars: 200_000,
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

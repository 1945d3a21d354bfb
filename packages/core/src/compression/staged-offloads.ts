import type {
  CompressionContext,
  Message,
  OffloadStore,
  StructuredSummary,
} from '../contracts/index.js';
import { contentAddressedPut, offloadId } from '../offload/index.js';

/** Ids of staged messages, by staging store: see `knownOffloadId`. */
const stagedIds = new WeakMap<OffloadStore, (message: Message) => string>();

/** The offloads of one compaction: see `stageOffloads`. */
export interface StagedOffloads {
  /** What the strategies write to. */
  store: OffloadStore;
  /**
   * Writes the staged messages that `referenced` names, once the result is known; returns whether
   * an id a strategy reported was written (always true for a store that is written as it goes).
   */
  commit(referenced: ReadonlySet<string>): Promise<(id: string) => boolean>;
}

/**
 * Offloads that follow what is kept. A compaction of a long history offloads thousands of
 * messages (every message of every compressed tool run) and then summarizes most of the records
 * that pointed at them: writing those would cost a file each for content nothing refers to. With a
 * store whose ids are `offloadId(message)` (core's stores), `put` only computes the id and keeps
 * the message; `commit` writes the ones the result refers to (its messages and its summary).
 * Other stores are written to as the strategies go.
 */
export function stageOffloads(
  store: OffloadStore,
  scope: CompressionContext['scope'],
): StagedOffloads {
  const putMany = contentAddressedPut(store);
  if (!putMany) return { store, commit: async () => () => true };
  const ids = new WeakMap<Message, string>();
  const idOf = (message: Message): string => {
    let id = ids.get(message);
    if (id === undefined) {
      id = offloadId(message);
      ids.set(message, id);
    }
    return id;
  };
  const pending = new Map<string, Message>();
  const staging: OffloadStore = {
    async put(_scope, message) {
      const id = idOf(message);
      pending.set(id, message);
      return id;
    },
    get: (getScope, id) => store.get(getScope, id),
    delete: (deleteScope, id) => store.delete(deleteScope, id),
  };
  stagedIds.set(staging, idOf);
  return {
    store: staging,
    async commit(referenced) {
      const entries = [...pending]
        .filter(([id]) => referenced.has(id))
        .map(([id, message]) => ({ id, message }));
      pending.clear();
      await putMany(scope, entries);
      const written = new Set(entries.map((entry) => entry.id));
      return (id) => written.has(id);
    },
  };
}

/**
 * The id `context.offloadStore.put(scope, message)` will return, when a compaction staged its
 * offloads (`stageOffloads`): strategies render a preview with its real id and count it once,
 * instead of counting a placeholder preview first to learn whether storing pays.
 */
export function knownOffloadId(store: OffloadStore, message: Message): string | undefined {
  return stagedIds.get(store)?.(message);
}

const OFFLOAD_ID_PATTERN = /off_[0-9a-f]{16}/g;

/**
 * Every offload id a compaction's result refers to: the ids in its messages' `ctxmem.offloadIds`
 * and any written in their text (a tool-run record, a summary bullet) or in the structured summary.
 */
export function referencedOffloadIds(
  messages: readonly Message[],
  summary: StructuredSummary | undefined,
): Set<string> {
  const ids = new Set<string>();
  for (const message of messages) {
    for (const id of message.ctxmem?.offloadIds ?? []) ids.add(id);
    for (const match of JSON.stringify(message.content).matchAll(OFFLOAD_ID_PATTERN)) {
      ids.add(match[0]);
    }
  }
  if (summary) {
    for (const match of JSON.stringify(summary).matchAll(OFFLOAD_ID_PATTERN)) ids.add(match[0]);
  }
  return ids;
}

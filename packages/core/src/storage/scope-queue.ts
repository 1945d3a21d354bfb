/**
 * One line per scope within a process, in which adds waiting next to each other run as one: a
 * store then merges their drafts at once and writes them with one commit (PostgreSQL, Redis: one
 * round trip; the file store: one lock, one appended line, one fsync), instead of one per add
 * while the others wait. An instance serving several requests of one scope at once adds their
 * cards at the rate of one add.
 *
 * A joined batch gives each call what adding alone would, in the same order: its drafts are merged
 * after the drafts of the calls before it (a later call's duplicate of an earlier call's card
 * returns that card), and each call gets one card per draft, as stored once the batch committed
 * (as within one call, a card a later draft merged into shows that merge). A call that is not an
 * add (a list, a removal) ends the batch before it, so it sees every add queued before it and none
 * queued after.
 *
 * A joined batch that fails with a `StorageError` (the store unreachable, a lock that timed out)
 * fails each of its calls with it, as the store would have failed each of them: running them again
 * one by one would only make each wait for the same fault. Any other error may belong to one
 * call's drafts, so the batch's calls are run again one at a time and each gets its own outcome.
 */
import type { MemoryCard, MemoryCardDraft } from '../contracts/index.js';
import { StorageError } from '../errors/index.js';
import { createKeyedQueue } from './keyed-queue.js';

/** Most drafts one joined batch holds; an add that would pass it starts the next batch. */
export const MAX_JOINED_DRAFTS = 1_000;

/** Adds drafts to the scope of the line, one card per draft, in order. */
export type AddDrafts = (drafts: readonly MemoryCardDraft[]) => Promise<MemoryCard[]>;

export interface ScopeQueue {
  /** Runs `work` after every earlier call of `key` settled (see `createKeyedQueue`). */
  run<Result>(key: string, work: () => Promise<Result>): Promise<Result>;
  /**
   * Adds `drafts` after every earlier call of `key` settled, joined with the adds queued next to
   * it. A joined batch runs the `addDrafts` of its first call with every call's drafts: calls of
   * one key must pass functions that do the same.
   */
  add(key: string, drafts: readonly MemoryCardDraft[], addDrafts: AddDrafts): Promise<MemoryCard[]>;
}

interface QueuedAdd {
  drafts: readonly MemoryCardDraft[];
  resolve(cards: MemoryCard[]): void;
  reject(error: unknown): void;
}

interface Batch {
  adds: QueuedAdd[];
  drafts: number;
  addDrafts: AddDrafts;
}

async function runBatch({ adds, addDrafts }: Batch): Promise<void> {
  // A function that throws instead of rejecting still settles its calls.
  const attempt = async (drafts: readonly MemoryCardDraft[]) => addDrafts(drafts);
  if (adds.length === 1) {
    const [only] = adds as [QueuedAdd];
    await attempt(only.drafts).then(only.resolve, only.reject);
    return;
  }
  let cards: MemoryCard[];
  try {
    cards = await attempt(adds.flatMap((queued) => queued.drafts));
  } catch (error) {
    if (StorageError.isInstance(error)) {
      for (const queued of adds) queued.reject(error);
      return;
    }
    for (const queued of adds) await attempt(queued.drafts).then(queued.resolve, queued.reject);
    return;
  }
  let offset = 0;
  for (const queued of adds) {
    queued.resolve(cards.slice(offset, offset + queued.drafts.length));
    offset += queued.drafts.length;
  }
}

export function createScopeQueue(): ScopeQueue {
  const queued = createKeyedQueue();
  // Per key, the batch that is queued and has not started: the one a new add joins.
  const open = new Map<string, Batch>();
  return {
    run(key, work) {
      open.delete(key);
      return queued(key, work);
    },
    add(key, drafts, addDrafts) {
      return new Promise<MemoryCard[]>((resolve, reject) => {
        const add: QueuedAdd = { drafts, resolve, reject };
        const joined = open.get(key);
        if (joined && joined.drafts + drafts.length <= MAX_JOINED_DRAFTS) {
          joined.adds.push(add);
          joined.drafts += drafts.length;
          return;
        }
        const batch: Batch = { adds: [add], drafts: drafts.length, addDrafts };
        open.set(key, batch);
        void queued(key, () => {
          if (open.get(key) === batch) open.delete(key);
          return runBatch(batch);
        });
      });
    },
  };
}

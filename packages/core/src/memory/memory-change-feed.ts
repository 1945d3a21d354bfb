/**
 * How a reader that keeps its own index of a store's cards (memory search) follows the store
 * without listing every card on each read. The stores of this package register a feed for
 * themselves; any other store has none, and readers list its cards as before.
 */
import type { MemoryCard, MemoryStore, Scope } from '../contracts/index.js';
import type { CardIndex, CardIndexCursor } from './card-index.js';
import type { CheckedLogPosition, LogChanges, LogPosition } from './card-log-position.js';
import { copyCard } from './card-records.js';

export type MemoryChangeCursor = CardIndexCursor;

/**
 * What changed in a scope since a cursor. Cards are copies; superseded ones mean "gone". `log` is
 * where a file store's log stood for these cards (see `memoryLog`).
 */
export type MemoryChanges = { log?: LogPosition } & (
  | {
      cursor: MemoryChangeCursor;
      /** Every current card: the cursor was of another index, or too old. */
      full: MemoryCard[];
    }
  | {
      cursor: MemoryChangeCursor;
      /** Cards added or changed since the cursor, superseded ones included. */
      changed: MemoryCard[];
      /** Ids of cards removed since the cursor. */
      removed: string[];
    }
);

type ChangeFeed = (scope: Scope, since?: MemoryChangeCursor) => Promise<MemoryChanges>;

const feeds = new WeakMap<MemoryStore, ChangeFeed>();

/** Lets readers follow `store` through `feed` (called by the stores themselves). */
export function registerMemoryChangeFeed(store: MemoryStore, feed: ChangeFeed): void {
  feeds.set(store, feed);
}

/**
 * The changes of `scope` since `since` (every current card without it), or undefined when the
 * store has no change feed. Reads the scope like `list` does: no lock, same scope checks.
 */
export function readMemoryChanges(
  store: MemoryStore,
  scope: Scope,
  since?: MemoryChangeCursor,
): Promise<MemoryChanges> | undefined {
  return feeds.get(store)?.(scope, since);
}

const EMPTY_CURSOR: MemoryChangeCursor = { generation: 'empty', revision: 0 };

/** The changes of one index since a cursor; `index` undefined for a scope with no cards yet. */
export function changesOfIndex(
  index: CardIndex | undefined,
  since: MemoryChangeCursor | undefined,
): MemoryChanges {
  if (!index) return { cursor: EMPTY_CURSOR, full: [] };
  const cursor = index.cursor();
  const ids = since ? index.changesSince(since) : undefined;
  if (!ids) {
    return {
      cursor,
      full: index
        .cards()
        .filter((card) => card.supersededBy === undefined)
        .map(copyCard),
    };
  }
  const changed: MemoryCard[] = [];
  const removed: string[] = [];
  for (const id of ids) {
    const card = index.get(id);
    if (card) changed.push(copyCard(card));
    else removed.push(id);
  }
  return { cursor, changed, removed };
}

/**
 * A store's log, for readers that save what they derive from it (memory search's indexes) and
 * later read only what was appended since. File stores register one.
 */
export interface MemoryLog {
  /** `position` (from `MemoryChanges.log`) with its fingerprint, if the log still has it. */
  check(scope: Scope, position: LogPosition): Promise<CheckedLogPosition | undefined>;
  /** What was appended since `since`, or undefined when the whole scope must be read again. */
  changesSince(scope: Scope, since: CheckedLogPosition): Promise<LogChanges | undefined>;
}

const logs = new WeakMap<MemoryStore, MemoryLog>();

/** Lets readers follow the log of `store` (called by the stores themselves). */
export function registerMemoryLog(store: MemoryStore, log: MemoryLog): void {
  logs.set(store, log);
}

/** The log of `store`, or undefined when it keeps none. */
export function memoryLog(store: MemoryStore): MemoryLog | undefined {
  return logs.get(store);
}

/**
 * What memory search keeps in memory for one scope: the current cards with their indexed text,
 * BM25, which vectors are in the index, and the embedding job's work list. The sync
 * (`scope-sync.ts`) writes it, the embedding job (`embedding-job.ts`) and the searches read it.
 */
import type { MemoryCard, MemoryCardType } from '../contracts/index.js';
import type { CheckedLogPosition, LogPosition } from '../memory/card-log-position.js';
import type { MemoryChangeCursor } from '../memory/memory-change-feed.js';
import type { Bm25Index } from './bm25-index.js';
import type { SavedIndexLocation } from './saved-search-index.js';

/** A current card of the scope, with the text that is indexed and embedded. */
export interface Entry {
  card: MemoryCard;
  /** `cardText(card)`: what is embedded. */
  text: string;
  /**
   * The card's date terms (`dates`), which BM25 indexes after `text`; empty without them.
   * @default ''
   */
  dateTerms: string;
  /**
   * `contentHash` of what BM25 indexes (`text`, then the date terms): the saved analysis and the
   * vector of a card are valid for this hash only.
   */
  hash: string;
  /**
   * The card's type, when known without parsing the card (a card of a saved index).
   * @default `card.type`
   */
  readonly cardType?: MemoryCardType;
  /**
   * The card's `createdAt` in milliseconds since 1970 (0 when it is not a date), when known
   * without parsing the card.
   * @default from `card.createdAt`
   */
  readonly createdTime?: number;
}

/** The entry's card type; a card of a saved index is not parsed for it. */
export function entryType(entry: Entry): MemoryCardType {
  return entry.cardType ?? entry.card.type;
}

/** `createdAt` of the entry's card in milliseconds (0 when it is not a date), without parsing. */
export function entryTime(entry: Entry): number {
  return entry.createdTime ?? cardTime(entry.card);
}

/** Visits an entry's id, card type and `createdAt` in milliseconds. */
export type TypeAndTimeVisitor = (id: string, type: MemoryCardType, time: number) => void;

/**
 * Calls `visit` for every entry, in map order, with its card's type and time; the entries of a
 * saved index (`SavedEntries`) give them without making an entry per card.
 */
export function forEachTypeAndTime(
  entries: ScopeState['entries'],
  visit: TypeAndTimeVisitor,
): void {
  const source = entries as { forEachTypeAndTime?: (visit: TypeAndTimeVisitor) => void };
  if (source.forEachTypeAndTime) {
    source.forEachTypeAndTime(visit);
    return;
  }
  for (const [id, entry] of entries) visit(id, entryType(entry), entryTime(entry));
}

/** `createdAt` of `card` in milliseconds (0 when it is not a date). */
export function cardTime(card: MemoryCard): number {
  const time = Date.parse(card.createdAt);
  return Number.isFinite(time) ? time : 0;
}

export interface ScopeState {
  key: string;
  entries: Map<string, Entry>;
  bm25: Bm25Index;
  /** Card id → hash of the text whose vector is in the index. */
  indexed: Map<string, string>;
  /** Cards whose vector is missing or of an older text: the embedding job's work list. */
  pending: Set<string>;
  /** Ids in the vector index that left the scope, to remove from it. */
  stale: Set<string>;
  /** Where the store's change feed was when the scope was last synced (stores that have one). */
  cursor?: MemoryChangeCursor;
  /** The running background embedding job, if any. */
  job?: Promise<number>;
  /** Card ids in sequence order, for `sequenceContext`; rebuilt after the cards change. */
  sequence?: { ids: string[]; positions: Map<string, number> };
  /** Where the scope's indexes are saved (file stores), and whether they changed since. */
  saved?: SavedIndexLocation;
  unsaved: boolean;
  /** Whether the saved indexes were looked for (once per scope and process). */
  opened: boolean;
  /** Loading the saved indexes, on the scope's first sync: later syncs wait for it. */
  opening?: Promise<void>;
  /**
   * Where the store's card log stood for the entries (file stores): checked when they were
   * followed through the log itself, unchecked when they came from the store's change feed.
   */
  log?: LogPosition | CheckedLogPosition;
}

/** Key of a card's vector in the embedding cache: embedder, card and text. */
export function embeddingCacheKey(embedderId: string, entry: Entry): string {
  return `${embedderId}\u0000${entry.card.id}\u0000${entry.hash}`;
}

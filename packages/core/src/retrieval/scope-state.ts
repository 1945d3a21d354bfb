/**
 * What memory search keeps in memory for one scope: the current cards with their indexed text,
 * BM25, which vectors are in the index, and the embedding job's work list. The sync
 * (`scope-sync.ts`) writes it, the embedding job (`embedding-job.ts`) and the searches read it.
 */
import type { MemoryCard } from '../contracts/index.js';
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

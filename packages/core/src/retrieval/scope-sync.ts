/**
 * Keeps each scope's state (`scope-state.ts`) in line with the store: the change feed when the
 * store has one, a full listing and diff otherwise, and the indexes saved beside a file store's
 * cards on a scope's first sync in a process. Also saves them back after `sync`. The card text
 * that is indexed and embedded is computed here (`cardText`, and the date terms BM25 indexes
 * after it), once per card version.
 */
import { KeyedLru } from '../cache/index.js';
import type { MemoryCard, Scope } from '../contracts/index.js';
import { memoryLog, readMemoryChanges } from '../memory/memory-change-feed.js';
import { scopeKey } from '../storage/index.js';
import { analyzeText } from '../text/index.js';
import { createBm25Index } from './bm25-index.js';
import { LEXICAL_FULL_SCAN_LIMIT } from './candidate-search.js';
import { dateTerms } from './date-expressions.js';
import { contentHash } from './hash-string.js';
import { adoptSavedIndex, type EntryTexts, keywordText, SavedEntries } from './saved-entries.js';
import {
  openSavedIndex,
  rebuiltEvent,
  saveScopeIndex,
  useSavedVectors,
} from './saved-search-index.js';
import { embeddingCacheKey, type ScopeState } from './scope-state.js';
import type { SavedSearchIndex, SearchIndexFileError } from './search-index-file.js';
import type { SearchSettings } from './search-settings.js';
import { noteAddedEntry, noteRemovedId } from './sequence-context.js';

export interface SyncCounts {
  added: number;
  updated: number;
  removed: number;
}

export interface ScopeSync {
  /**
   * Brings the scope's entries and BM25 in line with the store. Stores of this package have a
   * change feed: then only the cards changed since the last sync are read, and a search on an
   * unchanged scope reads nothing. Other stores are listed and diffed card by card.
   */
  syncCards(scope: Scope): Promise<SyncCounts & { state: ScopeState }>;
  /**
   * Saves the scope's indexes beside the cards (file stores) when they changed since they were
   * loaded or saved, so the next process loads them instead of analysing and embedding again.
   * Only from `sync`: a search must not pay for writing the whole index.
   */
  saveIndexes(state: ScopeState, scope: Scope): Promise<void>;
  /**
   * Forgets the scope's state after a card of its saved index failed its checksum when used
   * (cards are checked when read, see `saved-card-blocks.ts`): reported, and the next sync
   * rebuilds the scope from the store and does not load that file again.
   */
  discardSaved(scope: Scope, error: SearchIndexFileError): void;
  /** Forgets every scope's state. */
  clear(): void;
}

export function createScopeSync({
  store,
  embedder,
  index,
  bm25: { k1, b },
  analyzer,
  cardText,
  dates,
  defaultCardText,
  embeddingCache,
  maxScopes,
  lexical,
  onIndexEvent,
  context,
}: SearchSettings): ScopeSync {
  /**
   * Whether the vectors of a scope of `count` cards are saved and loaded: not with a lexical
   * embedder in a scope so large that only BM25's candidates get a cosine (they are embedded on
   * demand, which costs less than reading every vector).
   */
  const vectorsSaved = (count: number) => !(lexical && count > LEXICAL_FULL_SCAN_LIMIT);

  /** What an entry of `card` indexes: its text (embedded) and date terms (BM25 only). */
  const entryTexts: EntryTexts = (card) => {
    const text = cardText(card);
    return { text, dateTerms: dates ? dateTerms(text, new Date(card.createdAt)) : '' };
  };

  // Bounded: a server with many users must not keep an index for every scope it ever searched.
  // An evicted scope is rebuilt from the store on its next search (vectors come from the cache).
  const scopes = new KeyedLru<ScopeState>(maxScopes);

  function stateOf(scope: Scope): ScopeState {
    const key = scopeKey(scope);
    let state = scopes.get(key);
    if (!state) {
      state = {
        key,
        entries: new Map(),
        bm25: createBm25Index({ k1, b, analyzer }),
        indexed: new Map(),
        pending: new Set(),
        stale: new Set(),
        unsaved: false,
        opened: false,
      };
      scopes.set(key, state);
    }
    return state;
  }

  /** Puts a current card into the scope's entries and BM25 (superseded ones are taken out). */
  function applyCard(state: ScopeState, card: MemoryCard, counts: SyncCounts): void {
    // The store hides superseded cards from `list`; the change feed reports them as changes.
    if (card.supersededBy !== undefined) {
      removeEntry(state, card.id, counts);
      return;
    }
    const existing = state.entries.get(card.id);
    // A card that moves in time or changes type has the sequence rebuilt at its next use.
    if (
      existing &&
      (existing.card.createdAt !== card.createdAt || existing.card.type !== card.type)
    ) {
      state.sequence = undefined;
    }
    const texts = entryTexts(card);
    if (existing?.text === texts.text && existing.dateTerms === texts.dateTerms) {
      // Same text, maybe new metadata (type, tags, updatedAt): nothing to re-index.
      existing.card = card;
      return;
    }
    if (existing) {
      embeddingCache.delete(embeddingCacheKey(embedder.id, existing));
      counts.updated++;
    } else {
      counts.added++;
    }
    // BM25 indexes the date terms after the text; the hash covers both (see `Entry.hash`).
    const indexed = keywordText(texts);
    const entry = { card, ...texts, hash: contentHash(indexed) };
    state.entries.set(card.id, entry);
    if (!existing) noteAddedEntry(state, entry, context?.types);
    state.bm25.upsert(card.id, indexed);
    state.unsaved = true;
    if (state.indexed.get(card.id) !== entry.hash) state.pending.add(card.id);
    else state.pending.delete(card.id);
  }

  function removeEntry(state: ScopeState, id: string, counts: SyncCounts): void {
    const entry = state.entries.get(id);
    if (!entry) return;
    state.entries.delete(id);
    state.bm25.remove(id);
    state.unsaved = true;
    state.pending.delete(id);
    if (state.indexed.has(id)) state.stale.add(id);
    embeddingCache.delete(embeddingCacheKey(embedder.id, entry));
    noteRemovedId(state, id);
    counts.removed++;
  }

  /** Starts the scope from its saved cards, BM25 postings and vectors (nothing is parsed yet). */
  function adopt(state: ScopeState, saved: SavedSearchIndex, counts: SyncCounts): void {
    const entries = adoptSavedIndex(saved, state.bm25, entryTexts);
    if (!entries) return;
    state.entries = entries;
    state.sequence = undefined;
    counts.added += entries.size;
    const loaded = new Set(useSavedVectors(saved, index, state.key));
    // Without saved vectors in a large scope of a lexical embedder, cards are embedded when they
    // are a query's candidates, not all up front.
    const deferred = saved.vectors === undefined && !vectorsSaved(entries.size);
    if (!deferred || loaded.size > 0) {
      for (const [id, entry] of entries) {
        if (loaded.has(id)) state.indexed.set(id, entry.hash);
        else if (!deferred) state.pending.add(id);
      }
    }
    if (saved.log) state.log = saved.log;
    // Saved without knowing where the log stood: saved again once it is known.
    else state.unsaved = true;
  }

  async function syncCards(scope: Scope) {
    const state = stateOf(scope);
    const counts: SyncCounts = { added: 0, updated: 0, removed: 0 };
    // A scope's first sync in this process starts from the indexes saved beside the cards, if any;
    // a sync that runs meanwhile waits for them (it would otherwise index every card itself).
    if (!state.opened) {
      state.opened = true;
      state.opening = (async () => {
        const opened = await openSavedIndex({
          store,
          scope,
          embedder,
          analyzer,
          enabled: analyzer === analyzeText && defaultCardText,
          variant: dates ? 'dates' : '',
          wantVectors: vectorsSaved,
          onIndexEvent,
        });
        state.saved = opened.location;
        if (opened.saved) adopt(state, opened.saved, counts);
      })().finally(() => {
        state.opening = undefined;
      });
    }
    await state.opening;
    // Entries that match a known point of the store's log: only the lines appended since are
    // read, and the store never parses the whole log.
    const log = memoryLog(store);
    if (log && state.log && 'tail' in state.log && state.cursor === undefined) {
      const appended = await log.changesSince(scope, state.log);
      if (appended) {
        for (const card of appended.changed) applyCard(state, card, counts);
        for (const id of appended.removed) removeEntry(state, id, counts);
        state.log = appended.position;
        return { state, ...counts };
      }
    }
    const feed = readMemoryChanges(store, scope, state.cursor);
    const changes = feed ? await feed : undefined;
    state.log = changes?.log;
    if (changes && 'changed' in changes) {
      for (const card of changes.changed) applyCard(state, card, counts);
      for (const id of changes.removed) removeEntry(state, id, counts);
      state.cursor = changes.cursor;
      return { state, ...counts };
    }
    const listed = changes ? changes.full : await store.list(scope);
    const seen = new Set<string>();
    for (const card of listed) {
      if (card.supersededBy !== undefined) continue;
      seen.add(card.id);
      applyCard(state, card, counts);
    }
    for (const id of [...state.entries.keys()]) {
      if (!seen.has(id)) removeEntry(state, id, counts);
    }
    state.cursor = changes?.cursor;
    return { state, ...counts };
  }

  async function saveIndexes(state: ScopeState, scope: Scope): Promise<void> {
    if (!state.saved || !state.unsaved || state.job) return;
    state.unsaved = false;
    const position =
      state.log && !('tail' in state.log)
        ? await memoryLog(store)?.check(scope, state.log)
        : state.log;
    const saved = await saveScopeIndex({
      location: state.saved,
      scope,
      scopeKey: state.key,
      embedder,
      bm25: state.bm25,
      index,
      entries: [...state.entries].map(([id, entry]) => ({
        id,
        entry,
        embedded: state.indexed.get(id) === entry.hash,
      })),
      ...(position ? { log: position } : {}),
      withVectors: vectorsSaved(state.entries.size),
      onIndexEvent,
    });
    if (!saved) state.unsaved = true;
  }

  function discardSaved(scope: Scope, error: SearchIndexFileError): void {
    const key = scopeKey(scope);
    const old = scopes.get(key);
    // Searches that ran together find the same damage: the first one discards the saved entries.
    if (old && !(old.entries instanceof SavedEntries)) return;
    scopes.delete(key);
    const state = stateOf(scope);
    state.opened = true;
    if (!old) return;
    state.saved = old.saved;
    // Vectors the old state put in the index are taken out by the next embedding job.
    for (const id of [...old.indexed.keys(), ...old.stale]) state.stale.add(id);
    if (old.saved) onIndexEvent(rebuiltEvent(scope, old.saved.path, error.message));
  }

  return { syncCards, saveIndexes, discardSaved, clear: () => scopes.clear() };
}

/**
 * How memory search keeps its indexes of a scope beside a file store's cards, and starts from
 * them in a new process (see `search-index-file.ts` for the file). Used only with the default
 * analyzer and card text (functions cannot be compared across processes), and only for stores
 * that keep files (`memorySidecarPath`). The cards and BM25 are always saved; vectors only from
 * the default brute-force index, and not for a lexical embedder in a scope large enough that it
 * scores only BM25's candidates (those are embedded on demand: faster than reading every vector).
 */
import type { Embedder, MemoryIndex, MemoryStore, Scope } from '../contracts/index.js';
import type { CheckedLogPosition } from '../memory/card-log-position.js';
import { memorySidecarPath } from '../memory/memory-sidecar.js';
import type { TextAnalyzer } from '../text/index.js';
import type { Bm25Index } from './bm25-index.js';
import { bm25PostingAccess } from './bm25-index.js';
import { adoptRows, indexedRows } from './brute-force-index.js';
import { hash32 } from './hash-string.js';
import { SavedEntry } from './saved-entries.js';
import { type Entry, entryTime, entryType } from './scope-state.js';
import {
  canSaveSearchIndex,
  readSearchIndexFile,
  type SavedSearchIndex,
  SearchIndexFileError,
  writeSearchIndexFile,
} from './search-index-file.js';

/** Reported when saved indexes are rebuilt (damaged or stale) or could not be saved. */
export interface SearchIndexEvent {
  type: 'search-index-rebuilt' | 'search-index-not-saved';
  scope: Scope;
  /** The saved index file. */
  path: string;
  /** What happened and why (never card content). */
  message: string;
}

/** The event of a saved index at `path` that is rebuilt for `reason`. */
export function rebuiltEvent(scope: Scope, path: string, reason: string): SearchIndexEvent {
  return {
    type: 'search-index-rebuilt',
    scope,
    path,
    message: `the saved search index ${path} ${reason}; it is rebuilt from the cards`,
  };
}

export interface SavedIndexLocation {
  path: string;
  /** The analyzer's fingerprint, stored with the index. */
  analyzer: string;
}

/** Words that exercise stemming, stop words, contractions, numbers and CJK splitting. */
const PROBE =
  'The users were running quickly to Berlin’s meetings in 2024 and didn’t stop; 東京の会議 cafés, résumés, e-mails';

function fingerprint(analyzer: TextAnalyzer): string {
  return analyzer(PROBE).join(' ');
}

export interface OpenSavedIndexOptions {
  store: MemoryStore;
  scope: Scope;
  embedder: Embedder;
  analyzer: TextAnalyzer;
  /** False with a custom analyzer or card text: nothing is saved or loaded. */
  enabled: boolean;
  /** What else shapes the indexed text (such as date terms): part of the fingerprint. */
  variant: string;
  /** Whether the vectors of a scope of this many cards are read. */
  wantVectors: (count: number) => boolean;
  onIndexEvent: (event: SearchIndexEvent) => void;
}

/**
 * Where the scope's indexes are saved, and what is saved there when it fits this search (same
 * embedder, same analysis). A damaged, stale or older file is reported and ignored (it is rebuilt
 * and saved over); a missing one is simply absent.
 */
export async function openSavedIndex({
  store,
  scope,
  embedder,
  analyzer,
  enabled,
  variant,
  wantVectors,
  onIndexEvent,
}: OpenSavedIndexOptions): Promise<{ location?: SavedIndexLocation; saved?: SavedSearchIndex }> {
  if (!enabled || !canSaveSearchIndex) return {};
  const name = `search-index-${hash32(embedder.id).toString(16).padStart(8, '0')}.bin`;
  const path = memorySidecarPath(store, scope, name);
  if (path === undefined) return {};
  const location = {
    path,
    analyzer: variant === '' ? fingerprint(analyzer) : `${fingerprint(analyzer)} +${variant}`,
  };
  const rebuilt = (reason: string) => {
    onIndexEvent(rebuiltEvent(scope, path, reason));
    return { location };
  };
  let saved: SavedSearchIndex | undefined;
  try {
    saved = await readSearchIndexFile(path, wantVectors);
  } catch (error) {
    if (!SearchIndexFileError.isInstance(error)) throw error;
    return rebuilt(error.message);
  }
  if (!saved) return { location };
  const stale = (reason: string) => {
    saved.cards.close();
    return rebuilt(reason);
  };
  if (saved.embedderId !== embedder.id || saved.dimensions !== embedder.dimensions) {
    return stale(`is of another embedder (${saved.embedderId}, ${saved.dimensions} dimensions)`);
  }
  if (saved.analyzer !== location.analyzer) return stale('was built by another text analysis');
  return { location, saved };
}

/**
 * Puts the saved vectors of the saved cards into `index`, when it is the default brute-force
 * index, holds nothing of the scope yet, and the vectors were read. Returns the ids whose vectors
 * were loaded (the others must be embedded, or are embedded on demand).
 */
export function useSavedVectors(
  saved: SavedSearchIndex,
  index: MemoryIndex,
  scopeKey: string,
): string[] {
  const { vectors, dimensions, rows: rowOf } = saved;
  if (!vectors) return [];
  const ids: string[] = [];
  const rows: number[] = [];
  saved.ids.forEach((id, number) => {
    const row = rowOf[number]!;
    if (row < 0) return;
    ids.push(id);
    rows.push(row);
  });
  // The saved rows in place when they are exactly the ones needed, in order (the usual case).
  const inPlace =
    rows.length * dimensions === vectors.length && rows.every((row, at) => row === at);
  let matrix = vectors;
  if (!inPlace) {
    matrix = new Float32Array(rows.length * dimensions);
    rows.forEach((row, at) => {
      matrix.set(vectors.subarray(row * dimensions, (row + 1) * dimensions), at * dimensions);
    });
  }
  return adoptRows(index, ids, matrix, scopeKey) ? ids : [];
}

export interface SaveScopeIndexOptions {
  location: SavedIndexLocation;
  scope: Scope;
  scopeKey: string;
  embedder: Embedder;
  bm25: Bm25Index;
  index: MemoryIndex;
  /** The scope's cards by id, and whether the vector of each in `index` is of its current text. */
  entries: Iterable<{ id: string; entry: Entry; embedded: boolean }>;
  /** Where the store's log stood for these cards. */
  log?: CheckedLogPosition;
  /** False when the vectors are not worth saving (see the top of this file). */
  withVectors: boolean;
  onIndexEvent: (event: SearchIndexEvent) => void;
}

/** Card numbers in the order of their ids, for a binary search by id (`SavedEntries`). */
function idOrderOf(ids: readonly string[]): Uint32Array {
  const order = Uint32Array.from(ids.keys());
  return order.sort((left, right) => (ids[left]! < ids[right]! ? -1 : 1));
}

/** Saves the scope's indexes; a failure is reported, never thrown (the cards are safe). */
export async function saveScopeIndex({
  location,
  scope,
  scopeKey,
  embedder,
  bm25,
  index,
  entries,
  log,
  withVectors,
  onIndexEvent,
}: SaveScopeIndexOptions): Promise<boolean> {
  const access = bm25PostingAccess(bm25);
  if (!access) return false;
  const ids: string[] = [];
  const hashes: string[] = [];
  const cardJson: string[] = [];
  const embeddedIds: string[] = [];
  const rows: number[] = [];
  const types: string[] = [];
  const times: number[] = [];
  for (const { id, entry, embedded } of entries) {
    ids.push(id);
    hashes.push(entry.hash);
    types.push(entryType(entry));
    times.push(entryTime(entry));
    // A card loaded from the saved index and not used since is written back without parsing it.
    cardJson.push(entry instanceof SavedEntry ? entry.json() : JSON.stringify(entry.card));
    const vector = withVectors && embedded;
    rows.push(vector ? embeddedIds.length : -1);
    if (vector) embeddedIds.push(id);
  }
  let vectors = indexedRows(index, embeddedIds, scopeKey);
  if (!vectors) {
    vectors = new Float32Array(0);
    rows.fill(-1);
  }
  try {
    await writeSearchIndexFile(location.path, {
      embedderId: embedder.id,
      dimensions: embedder.dimensions,
      analyzer: location.analyzer,
      ...(log ? { log } : {}),
      ids,
      hashes,
      cardJson,
      idOrder: idOrderOf(ids),
      types,
      times: Float64Array.from(times),
      postings: access.export(ids),
      rows: Int32Array.from(rows),
      vectors,
    });
    return true;
  } catch (error) {
    onIndexEvent({
      type: 'search-index-not-saved',
      scope,
      path: location.path,
      message: `could not save the search index ${location.path}: ${error instanceof Error ? error.message : String(error)}`,
    });
    return false;
  }
}

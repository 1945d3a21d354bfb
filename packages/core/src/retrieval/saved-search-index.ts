/**
 * How memory search keeps its indexes of a scope beside a file store's cards, and starts from
 * them in a new process (see `search-index-file.ts` for the file). Used only with the default
 * analyzer and card text (functions cannot be compared across processes), and only for stores
 * that keep files (`memorySidecarPath`). The BM25 side is always saved; vectors only from the
 * default brute-force index (another index keeps its own vectors, or re-embeds).
 */
import type { Embedder, MemoryIndex, MemoryStore, Scope } from '../contracts/index.js';
import { memorySidecarPath } from '../memory/memory-sidecar.js';
import type { TextAnalyzer } from '../text/index.js';
import type { Bm25Document, Bm25Index } from './bm25-index.js';
import { bm25Documents } from './bm25-index.js';
import { adoptRows, indexedRows } from './brute-force-index.js';
import { hash32 } from './hash-string.js';
import {
  canSaveSearchIndex,
  readSearchIndexFile,
  type SavedSearchEntry,
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
  onIndexEvent: (event: SearchIndexEvent) => void;
}

/**
 * Where the scope's indexes are saved, and what is saved there when it fits this search (same
 * embedder, same analysis). A damaged or stale file is reported and ignored (it is rebuilt and
 * saved over); a missing one is simply absent.
 */
export async function openSavedIndex({
  store,
  scope,
  embedder,
  analyzer,
  enabled,
  onIndexEvent,
}: OpenSavedIndexOptions): Promise<{ location?: SavedIndexLocation; saved?: SavedSearchIndex }> {
  if (!enabled || !canSaveSearchIndex) return {};
  const name = `search-index-${hash32(embedder.id).toString(16).padStart(8, '0')}.bin`;
  const path = memorySidecarPath(store, scope, name);
  if (path === undefined) return {};
  const location = { path, analyzer: fingerprint(analyzer) };
  const rebuilt = (reason: string) => {
    onIndexEvent({
      type: 'search-index-rebuilt',
      scope,
      path,
      message: `the saved search index ${path} ${reason}; it is rebuilt from the cards`,
    });
    return { location };
  };
  let saved: SavedSearchIndex | undefined;
  try {
    saved = await readSearchIndexFile(path);
  } catch (error) {
    if (!(error instanceof SearchIndexFileError)) throw error;
    return rebuilt(`cannot be read (${error.message})`);
  }
  if (!saved) return { location };
  if (saved.embedderId !== embedder.id || saved.dimensions !== embedder.dimensions) {
    return rebuilt(`is of another embedder (${saved.embedderId}, ${saved.dimensions} dimensions)`);
  }
  if (saved.analyzer !== location.analyzer) return rebuilt('was built by another text analysis');
  return { location, saved };
}

/** The saved BM25 document of a card, when it was saved for the same text. */
export function savedDocument(
  saved: SavedSearchIndex | undefined,
  id: string,
  hash: string,
): Bm25Document | undefined {
  const entry = saved?.entries.get(id);
  return entry?.hash === hash ? entry.document : undefined;
}

/**
 * Puts the saved vectors of `cards` (id and current text hash) into `index`, when it is the
 * default brute-force index and holds nothing of the scope yet. Returns the ids whose vectors
 * were loaded (the others must be embedded).
 */
export function useSavedIndex(
  saved: SavedSearchIndex,
  index: MemoryIndex,
  scopeKey: string,
  cards: Iterable<{ id: string; hash: string }>,
): string[] {
  const ids: string[] = [];
  const rows: number[] = [];
  for (const { id, hash } of cards) {
    const entry = saved.entries.get(id);
    if (entry?.hash !== hash || entry.row < 0) continue;
    ids.push(id);
    rows.push(entry.row);
  }
  const { dimensions } = saved;
  // The saved rows in place when they are exactly the ones needed, in order (the usual case).
  const inPlace =
    rows.length * dimensions === saved.vectors.length && rows.every((row, at) => row === at);
  let matrix = saved.vectors;
  if (!inPlace) {
    matrix = new Float32Array(rows.length * dimensions);
    rows.forEach((row, at) => {
      matrix.set(saved.vectors.subarray(row * dimensions, (row + 1) * dimensions), at * dimensions);
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
  /** The scope's cards: id, current text hash, and whether its vector in `index` is of that text. */
  cards: Iterable<{ id: string; hash: string; embedded: boolean }>;
  onIndexEvent: (event: SearchIndexEvent) => void;
}

/** Saves the scope's indexes; a failure is reported, never thrown (the cards are safe). */
export async function saveScopeIndex({
  location,
  scope,
  scopeKey,
  embedder,
  bm25,
  index,
  cards,
  onIndexEvent,
}: SaveScopeIndexOptions): Promise<boolean> {
  const documents = bm25Documents(bm25);
  if (!documents) return false;
  const entries = new Map<string, SavedSearchEntry>();
  const embeddedIds: string[] = [];
  for (const { id, hash, embedded } of cards) {
    const document = documents.get(id);
    if (!document) continue;
    entries.set(id, { hash, document, row: embedded ? embeddedIds.length : -1 });
    if (embedded) embeddedIds.push(id);
  }
  let vectors = indexedRows(index, embeddedIds, scopeKey);
  if (!vectors) {
    vectors = new Float32Array(0);
    for (const entry of entries.values()) entry.row = -1;
  }
  try {
    await writeSearchIndexFile(location.path, {
      embedderId: embedder.id,
      dimensions: embedder.dimensions,
      analyzer: location.analyzer,
      entries,
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

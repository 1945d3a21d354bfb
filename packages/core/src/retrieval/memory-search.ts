import { KeyedLru } from '../cache/index.js';
import type {
  Embedder,
  MemoryCard,
  MemoryCardType,
  MemoryIndex,
  MemoryStore,
  Scope,
} from '../contracts/index.js';
import { InvalidArgumentError } from '../errors/index.js';
import { type MemoryChangeCursor, readMemoryChanges } from '../memory/memory-change-feed.js';
import { scopeKey } from '../storage/index.js';
import { analyzeText, type TextAnalyzer } from '../text/index.js';
import { type Bm25Index, bm25Documents, createBm25Index } from './bm25-index.js';
import { createBruteForceIndex, scoreIndexedIds } from './brute-force-index.js';
import { EmbedderDimensionError } from './embedder-dimension-error.js';
import {
  type CosineCalibration,
  calibrateCosines,
  reciprocalRankFusion,
  weightedFusion,
} from './fusion.js';
import { contentHash } from './hash-string.js';
import { createHashingEmbedder } from './hashing-embedder.js';
import { maximalMarginalRelevance } from './maximal-marginal-relevance.js';
import {
  openSavedIndex,
  type SavedIndexLocation,
  type SearchIndexEvent,
  savedDocument,
  saveScopeIndex,
  useSavedIndex,
} from './saved-search-index.js';
import type { SavedSearchIndex } from './search-index-file.js';

export type RetrievalMode = 'hybrid' | 'bm25' | 'vector';

/** Where vectors are kept between searches. A `Map` works; a persistent one saves re-embedding. */
export interface EmbeddingCache {
  get(key: string): Float32Array | undefined;
  set(key: string, vector: Float32Array): unknown;
  delete(key: string): unknown;
}

export type { SearchIndexEvent } from './saved-search-index.js';

/** Reported when the vector side failed or was too slow and the search used BM25 alone. */
export interface RetrievalFallbackEvent {
  type: 'retrieval-fallback';
  scope: Scope;
  /** The mode that was asked for. */
  from: RetrievalMode;
  to: 'bm25';
  reason: 'timeout' | 'error';
  /** The error's message (never card content). */
  message: string;
}

export interface MemorySearchOptions {
  /** Where the cards live; the search lists them lazily and never writes. */
  store: MemoryStore;
  /**
   * Vector index for card embeddings. Card ids are used as index ids, so cards of different
   * scopes sharing one index must have distinct ids (store-generated ids do).
   * @default createBruteForceIndex({ dimensions: embedder.dimensions })
   */
  index?: MemoryIndex;
  /**
   * Embeds cards and queries. The default is lexical (related word forms, not synonyms): pass a
   * model embedder for semantic matches.
   * @default createHashingEmbedder()
   */
  embedder?: Embedder;
  /** @default 'hybrid' */
  mode?: RetrievalMode;
  /**
   * How BM25 and vector results are combined in hybrid mode: `weighted` (convex combination of
   * BM25 normalised by `idealScore` and the calibrated cosine, see `cosineCalibration`) or `rrf`
   * (reciprocal-rank fusion, ranks only). Weighted fusion keeps how much better one card matches
   * than the next, which rank fusion throws away; on LoCoMo's tuning conversations rrf with equal
   * weights cost a sentence model 0.12 of hit@5.
   * @default 'weighted'
   */
  fusion?: 'rrf' | 'weighted';
  /**
   * Weight of each side in either fusion. The default follows the embedder's `kind`: a `lexical`
   * embedder (the built-in hashing one) only re-encodes the words, a weaker copy of BM25, so BM25
   * leads; a `semantic` one (a model, or any embedder that does not declare its kind) adds
   * meaning, so its cosine weighs more. Chosen on LoCoMo's tuning conversations.
   * @default { bm25: 0.95, vector: 0.05 } for a lexical embedder, { bm25: 0.65, vector: 0.35 } otherwise
   */
  weights?: { bm25: number; vector: number };
  /**
   * How cosines are rescaled before weighted fusion (see `CosineCalibration`): a sentence model's
   * cosines start around 0.2–0.4 for unrelated texts, so they are measured from the candidates'
   * floor; the hashing embedder's are used as they are.
   * @default 'none' for a lexical embedder, 'candidate-floor' otherwise
   */
  cosineCalibration?: CosineCalibration;
  /**
   * The `k` of reciprocal-rank fusion: larger values flatten the difference between ranks.
   * @default 60
   */
  rrfK?: number;
  /**
   * How many results each side contributes before fusion, boosts and MMR (at least `topK`).
   * @default 50
   */
  candidates?: number;
  /**
   * Longest wait for the vector side of one search (embedding new cards and the query); past it
   * the search answers from BM25 alone and reports a fallback. Card embedding keeps running in
   * the background, so the next search can use it. Keep it below any timeout the caller puts on
   * the whole search (the context manager's `searchTimeoutMs` is 2000).
   * @default 1000
   */
  timeoutMs?: number;
  /**
   * Longest wait for one background batch of card embeddings before it is abandoned (and retried
   * by a later search).
   * @default 60000
   */
  batchTimeoutMs?: number;
  /**
   * Cards embedded per embedder call.
   * @default 64
   */
  batchSize?: number;
  /**
   * After the embedder fails (an error or a batch timeout), searches answer from BM25 for this
   * long, flagged and reported, before the embedder is called again: a broken embedder is not
   * called, and cards are not re-embedded, on every search. `sync` always tries.
   * @default 30000
   */
  embedderRetryMs?: number;
  /**
   * BM25 parameters (see `createBm25Index`). Tuned on LoCoMo's development split: the low `b`
   * suits one-sentence cards, whose length says little about relevance.
   * @default { k1: 0.9, b: 0.2 }
   */
  bm25?: { k1?: number; b?: number };
  /**
   * Analyzer for BM25, and for the word overlap MMR uses when there are no vectors.
   * @default analyzeText
   */
  analyzer?: TextAnalyzer;
  /**
   * The text of a card that is indexed and embedded.
   * @default content followed by the tags
   */
  cardText?: (card: MemoryCard) => string;
  /**
   * For cards that are consecutive parts of one sequence, such as the turns of a transcript (one
   * card per turn): each card also scores through the `window` cards before it, the card `d`
   * places earlier passing on `weight ^ d` of its score. A turn often answers the one before it
   * ("5 years already!" after "How long have you been married?"), so a question that matches the
   * asking turn finds the answer too. The order is `createdAt`, then the store's list order.
   * Leave it off for self-contained cards (facts, decisions, preferences), whose neighbours are
   * unrelated: there it only adds noise. The defaults were chosen on LoCoMo's development split.
   * @default false; `{}` means `{ weight: 0.5, window: 2 }`
   */
  sequenceContext?: { weight?: number; window?: number } | false;
  /**
   * Vectors of cards, keyed by embedder id, card id and a hash of the card text.
   * @default an in-memory LRU of 10,000 vectors
   */
  embeddingCache?: EmbeddingCache;
  /**
   * Scopes whose text index is kept in memory; the least recently searched is dropped first and
   * rebuilt from the store when it is searched again.
   * @default 100
   */
  maxScopes?: number;
  /**
   * Current time in milliseconds (for recency boosts).
   * @default Date.now
   */
  now?: () => number;
  /**
   * Hits whose relevance is below this are flagged `lowConfidence` (and dropped with the query
   * option `dropLowConfidence`). Relevance is calibrated the same way whatever the fusion: the
   * weighted mean of the BM25 score divided by `idealScore` (about the share of the query's
   * words the card covers) and the cosine, plus what `sequenceContext` passes on (weighted
   * fusion only). So 0.1 means a card that matches about a tenth of the query, such as one
   * common word of a long question.
   * @default 0.1
   */
  relevanceFloor?: number;
  /** Called whenever a search falls back to BM25. */
  onFallback?: (event: RetrievalFallbackEvent) => void;
  /**
   * Called when the indexes saved beside a file store's cards were damaged or stale (another
   * embedder or text analysis) and are rebuilt, or could not be saved. The search goes on either
   * way: the saved indexes are only a cache.
   * @default emits a process warning with code `CTXMEM_SEARCH_INDEX`
   */
  onIndexEvent?: (event: SearchIndexEvent) => void;
}

export interface MemorySearchQueryOptions {
  /** @default 5 */
  topK?: number;
  /**
   * Results scoring below this are dropped (and results scoring 0 always are). The scale depends on the mode: hybrid `rrf` gives 1
   * to a card ranked first by both sides and about 0.5 to one ranked first by one side only;
   * `weighted` and `bm25` give about 1 to a card that matches every query word; `vector` gives
   * the cosine. Boosts are applied before the cut.
   * @default 0
   */
  minScore?: number;
  /** Only cards of these types. @default all types */
  types?: readonly MemoryCardType[];
  /** Only cards with at least one of these tags. @default no tag filter */
  tags?: readonly string[];
  /**
   * Maximal marginal relevance, so near-duplicate cards do not fill the results; `lambda` in
   * [0, 1] weighs relevance against novelty.
   * @default off; `{}` means lambda 0.7
   */
  mmr?: { lambda?: number };
  /**
   * Scores are multiplied by `0.5 ^ (age in days / half-life)`, age from `updatedAt`.
   * @default no recency boost
   */
  recencyHalfLifeDays?: number;
  /** Score multipliers per card type, for example `{ constraint: 1.5 }`. @default none */
  typeBoosts?: Partial<Record<MemoryCardType, number>>;
  /**
   * Drops hits below the search's `relevanceFloor` instead of flagging them `lowConfidence`.
   * @default false
   */
  dropLowConfidence?: boolean;
  /** Overrides the search's mode for this query. @default the search's mode */
  mode?: RetrievalMode;
  abortSignal?: AbortSignal;
}

export interface RetrievedMemory {
  card: MemoryCard;
  /** The final score (see `minScore` for its scale), boosts included. */
  score: number;
  /** Raw BM25 score, when the card matched a query word. */
  bm25?: number;
  /** Cosine similarity to the query, when vectors were used. */
  vector?: number;
  /** The part of `score` passed on by the cards before this one (with `sequenceContext`). */
  context?: number;
  /**
   * Set when the vector side failed and this hit comes from keyword search alone (the search's
   * report and `onFallback` say why).
   */
  keywordOnly?: true;
  /** Set when the hit's relevance is below the search's `relevanceFloor`: likely not relevant. */
  lowConfidence?: true;
}

export interface MemorySearchReport {
  /** The mode asked for. */
  mode: RetrievalMode;
  /** The mode that produced the results: `bm25` after a fallback. */
  usedMode: RetrievalMode;
  fallback?: { reason: 'timeout' | 'error'; message: string };
  /** Current cards in the scope (after the lazy sync). */
  cards: number;
}

export interface MemorySyncReport {
  cards: number;
  added: number;
  updated: number;
  removed: number;
  /** Cards whose vectors were computed now (cached ones are not counted). */
  embedded: number;
  /** Set when the embedder or index failed; the BM25 side is in sync regardless. */
  vectorError?: string;
}

export interface MemorySearch {
  /**
   * The best cards of `scope` for `query`, best first. Never throws for a failing embedder (it
   * falls back to BM25), except for `EmbedderDimensionError`: an embedder whose vectors do not
   * have its declared length is a configuration mistake, reported at its first use.
   */
  search(
    scope: Scope,
    query: string,
    options?: MemorySearchQueryOptions,
  ): Promise<RetrievedMemory[]>;
  /** Like `search`, and says which mode produced the results and why it fell back. */
  searchWithReport(
    scope: Scope,
    query: string,
    options?: MemorySearchQueryOptions,
  ): Promise<{ hits: RetrievedMemory[]; report: MemorySearchReport }>;
  /**
   * Brings the indexes of `scope` in line with the store and waits for every card to be
   * embedded (no timeout; not in `bm25` mode). Optional: searches sync lazily.
   */
  sync(scope: Scope): Promise<MemorySyncReport>;
  /** Forgets all in-memory index state (the embedding cache is kept). */
  clear(): void;
}

interface Entry {
  card: MemoryCard;
  text: string;
  hash: string;
}

interface ScopeState {
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
}

class VectorTimeoutError extends Error {
  constructor(milliseconds: number) {
    super(`the vector search took longer than ${milliseconds} ms`);
  }
}

const MODES: readonly RetrievalMode[] = ['hybrid', 'bm25', 'vector'];

/**
 * With a lexical embedder, the vector side scores only BM25's best matches, this many times the
 * candidate pool (when BM25 found at least a full pool): such an embedder re-encodes the words,
 * so a card that shares no word form with the query scores near 0, and its weight in the fusion
 * is small; scanning every card at 100,000 cards would cost more than the rest of the search.
 */
const LEXICAL_VECTOR_POOLS = 4;
/**
 * ...in scopes of more than this many cards: below it a full scan costs a few milliseconds, and
 * a card that shares only character n-grams with the query (a typo, a compound) can still pass
 * context to its neighbours (`sequenceContext`): on LoCoMo the restriction cost 0.5–0.7 points
 * of hit@5 with sequence context, none without.
 */
const LEXICAL_FULL_SCAN_LIMIT = 5000;

function invalid(argument: string, message: string): InvalidArgumentError {
  return new InvalidArgumentError({ message: `${argument} ${message}`, argument });
}

function checkPositiveInteger(argument: string, value: number): void {
  if (!Number.isInteger(value) || value < 1) {
    throw invalid(argument, `must be a positive integer, got ${value}`);
  }
}

function checkMode(argument: string, mode: unknown): asserts mode is RetrievalMode {
  if (!MODES.includes(mode as RetrievalMode)) {
    throw invalid(argument, `must be one of ${MODES.join(', ')}, got ${String(mode)}`);
  }
}

function checkSequenceContext({ weight = 0.5, window = 2 }: { weight?: number; window?: number }): {
  weight: number;
  window: number;
} {
  if (!(weight > 0 && weight <= 1)) {
    throw invalid('sequenceContext.weight', `must be in (0, 1], got ${weight}`);
  }
  checkPositiveInteger('sequenceContext.window', window);
  return { weight, window };
}

/** A lexical embedder, such as the built-in hashing one: fusion leans on BM25 (see `weights`). */
function isLexical(embedder: Embedder): boolean {
  return embedder.kind === undefined
    ? embedder.id.startsWith('ctxmem-hashing')
    : embedder.kind === 'lexical';
}

function defaultCardText(card: MemoryCard): string {
  return card.tags.length === 0 ? card.content : `${card.content}\n${card.tags.join(' ')}`;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function dot(left: Float32Array, right: Float32Array): number {
  let sum = 0;
  const length = Math.min(left.length, right.length);
  for (let position = 0; position < length; position++) sum += left[position]! * right[position]!;
  return sum;
}

/**
 * Waits for `promise`, but rejects as soon as `signal` aborts (with the signal's reason). The
 * promise itself keeps running; its later rejection is swallowed.
 */
function raceSignal<Value>(promise: Promise<Value>, signal: AbortSignal): Promise<Value> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<Value>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * Hybrid retrieval over the cards of a `MemoryStore`: BM25 and vector similarity fused by
 * reciprocal rank (or weights), with optional MMR, recency and type boosts. The search keeps its
 * own indexes and syncs them lazily on every search by comparing the store's cards (id,
 * `updatedAt`, text) with what it indexed. Card vectors are computed once per card text and
 * cached; when the embedder fails or is slower than `timeoutMs`, the search answers from BM25
 * and reports the fallback instead of throwing. Superseded cards are never returned, and a
 * search only ever sees the cards of its own scope.
 *
 * At scale: BM25 scores only the posting lists of the query's terms; with a lexical embedder the
 * vector side of a scope of over 5,000 cards scores only BM25's best matches (4 candidate pools;
 * a full scan otherwise). With a file store, `sync` saves the scope's BM25 documents and vectors
 * beside its cards (`search-index-<embedder>.bin`, default analyzer and card text only), and a
 * scope's first sync in a new process loads them, analysing and embedding only the cards that
 * changed since; a
 * damaged or stale file is rebuilt and reported to `onIndexEvent`.
 */
export function createMemorySearch({
  store,
  embedder = createHashingEmbedder(),
  index = createBruteForceIndex({ dimensions: embedder.dimensions }),
  mode: defaultMode = 'hybrid',
  fusion = 'weighted',
  weights = isLexical(embedder) ? { bm25: 0.95, vector: 0.05 } : { bm25: 0.65, vector: 0.35 },
  cosineCalibration = isLexical(embedder) ? 'none' : 'candidate-floor',
  rrfK = 60,
  candidates = 50,
  timeoutMs = 1000,
  batchTimeoutMs = 60_000,
  batchSize = 64,
  embedderRetryMs = 30_000,
  relevanceFloor = 0.1,
  bm25: { k1 = 0.9, b = 0.2 } = {},
  analyzer = analyzeText,
  cardText = defaultCardText,
  embeddingCache = new KeyedLru<Float32Array>(10_000),
  sequenceContext = false,
  now = Date.now,
  maxScopes = 100,
  onFallback,
  onIndexEvent = (event) =>
    process.emitWarning(`ctxmem memory search: ${event.message}`, { code: 'CTXMEM_SEARCH_INDEX' }),
}: MemorySearchOptions): MemorySearch {
  checkMode('mode', defaultMode);
  const context = sequenceContext === false ? undefined : checkSequenceContext(sequenceContext);
  if (fusion !== 'rrf' && fusion !== 'weighted') {
    throw invalid('fusion', `must be 'rrf' or 'weighted', got ${String(fusion)}`);
  }
  if (cosineCalibration !== 'none' && cosineCalibration !== 'candidate-floor') {
    throw invalid(
      'cosineCalibration',
      `must be 'none' or 'candidate-floor', got ${String(cosineCalibration)}`,
    );
  }
  if (!Number.isInteger(maxScopes) || maxScopes < 1) {
    throw invalid('maxScopes', `must be a positive integer, got ${maxScopes}`);
  }
  for (const side of ['bm25', 'vector'] as const) {
    const weight = weights[side];
    if (!Number.isFinite(weight) || weight < 0) {
      throw invalid('weights', `must be finite numbers >= 0, got ${side} ${weight}`);
    }
  }
  if (!Number.isFinite(rrfK) || rrfK < 0) throw invalid('rrfK', `must be >= 0, got ${rrfK}`);
  checkPositiveInteger('candidates', candidates);
  checkPositiveInteger('batchSize', batchSize);
  for (const [argument, value] of [
    ['timeoutMs', timeoutMs],
    ['batchTimeoutMs', batchTimeoutMs],
  ] as const) {
    if (!(value > 0)) throw invalid(argument, `must be a positive number, got ${value}`);
  }
  if (!(relevanceFloor >= 0 && relevanceFloor <= 1)) {
    throw invalid('relevanceFloor', `must be a number in [0, 1], got ${relevanceFloor}`);
  }
  if (!(embedderRetryMs >= 0)) {
    throw invalid('embedderRetryMs', `must be a number >= 0, got ${embedderRetryMs}`);
  }
  if (index.dimensions !== embedder.dimensions) {
    throw invalid(
      'index',
      `has ${index.dimensions} dimensions but the embedder produces ${embedder.dimensions}`,
    );
  }
  // Validates k1 and b once, up front, rather than on the first search.
  createBm25Index({ k1, b, analyzer });

  // Bounded: a server with many users must not keep an index for every scope it ever searched.
  // An evicted scope is rebuilt from the store on its next search (vectors come from the cache).
  const scopes = new KeyedLru<ScopeState>(maxScopes);
  // The embedder's state across scopes: a wrong dimension is permanent, other failures pause it.
  let dimensionError: EmbedderDimensionError | undefined;
  let failure: { at: number; message: string } | undefined;

  function recordFailure(error: unknown): void {
    if (EmbedderDimensionError.isInstance(error)) dimensionError = error;
    else if (!(error instanceof VectorTimeoutError))
      failure = { at: now(), message: errorMessage(error) };
  }

  function checkDimensions(vector: unknown): void {
    const length = (vector as { length?: unknown } | undefined)?.length;
    if (typeof length === 'number' && length !== embedder.dimensions) {
      throw new EmbedderDimensionError({
        embedderId: embedder.id,
        expected: embedder.dimensions,
        actual: length,
      });
    }
  }

  function cacheKey(entry: Entry): string {
    return `${embedder.id}\u0000${entry.card.id}\u0000${entry.hash}`;
  }

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
      };
      scopes.set(key, state);
    }
    return state;
  }

  interface SyncCounts {
    added: number;
    updated: number;
    removed: number;
  }

  /** Puts a current card into the scope's entries and BM25 (superseded ones are taken out). */
  function applyCard(
    state: ScopeState,
    card: MemoryCard,
    counts: SyncCounts,
    saved?: SavedSearchIndex,
  ): void {
    // The store hides superseded cards from `list`; the change feed reports them as changes.
    if (card.supersededBy !== undefined) {
      removeEntry(state, card.id, counts);
      return;
    }
    const existing = state.entries.get(card.id);
    const text = cardText(card);
    if (existing?.text === text) {
      // Same text, maybe new metadata (type, tags, updatedAt): nothing to re-index.
      if (existing.card.createdAt !== card.createdAt) state.sequence = undefined;
      existing.card = card;
      return;
    }
    if (existing) {
      embeddingCache.delete(cacheKey(existing));
      counts.updated++;
    } else {
      counts.added++;
      state.sequence = undefined;
    }
    const entry = { card, text, hash: contentHash(text) };
    state.entries.set(card.id, entry);
    // A saved analysis of the same text spares analysing it again (a new process, see `sync`).
    const document = savedDocument(saved, card.id, entry.hash);
    const documents = document && bm25Documents(state.bm25);
    if (document && documents) documents.put(card.id, document);
    else {
      state.bm25.upsert(card.id, text);
      state.unsaved = true;
    }
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
    embeddingCache.delete(cacheKey(entry));
    state.sequence = undefined;
    counts.removed++;
  }

  /**
   * Brings the scope's entries and BM25 in line with the store. Stores of this package have a
   * change feed: then only the cards changed since the last sync are read, and a search on an
   * unchanged scope reads nothing. Other stores are listed and diffed card by card.
   */
  async function syncCards(scope: Scope) {
    const state = stateOf(scope);
    const counts: SyncCounts = { added: 0, updated: 0, removed: 0 };
    const feed = readMemoryChanges(store, scope, state.cursor);
    const changes = feed ? await feed : undefined;
    if (changes && 'changed' in changes) {
      for (const card of changes.changed) applyCard(state, card, counts);
      for (const id of changes.removed) removeEntry(state, id, counts);
      state.cursor = changes.cursor;
      return { state, ...counts };
    }
    const listed = changes ? changes.full : await store.list(scope);
    // A scope's first sync in this process starts from the indexes saved beside the cards, if any.
    let saved: SavedSearchIndex | undefined;
    if (state.entries.size === 0 && !state.saved) {
      const opened = await openSavedIndex({
        store,
        scope,
        embedder,
        analyzer,
        enabled: analyzer === analyzeText && cardText === defaultCardText,
        onIndexEvent,
      });
      state.saved = opened.location;
      saved = opened.saved;
    }
    const seen = new Set<string>();
    for (const card of listed) {
      if (card.supersededBy !== undefined) continue;
      seen.add(card.id);
      applyCard(state, card, counts, saved);
    }
    for (const id of [...state.entries.keys()]) {
      if (!seen.has(id)) removeEntry(state, id, counts);
    }
    if (saved) {
      const cards = [...state.entries.values()].map((entry) => ({
        id: entry.card.id,
        hash: entry.hash,
      }));
      for (const id of useSavedIndex(saved, index, state.key, cards)) {
        state.indexed.set(id, state.entries.get(id)!.hash);
        state.pending.delete(id);
      }
      if (saved.entries.size !== state.entries.size) state.unsaved = true;
    }
    state.cursor = changes?.cursor;
    return { state, ...counts };
  }

  /** The scope's cards in sequence order: `createdAt`, then the order the store listed them in. */
  function sequenceOf(state: ScopeState): NonNullable<ScopeState['sequence']> {
    if (!state.sequence) {
      const listed = [...state.entries.values()].map((entry, position) => {
        const time = Date.parse(entry.card.createdAt);
        return { id: entry.card.id, time: Number.isFinite(time) ? time : 0, position };
      });
      listed.sort((left, right) => left.time - right.time || left.position - right.position);
      const ids = listed.map((item) => item.id);
      state.sequence = { ids, positions: new Map(ids.map((id, position) => [id, position])) };
    }
    return state.sequence;
  }

  /**
   * Adds to each card `weight ^ d` of the score of the card `d` places before it (d up to
   * `window`), skipping cards the query's filters exclude. Returns the added parts per card.
   */
  function passOnContext(
    state: ScopeState,
    scores: Map<string, number>,
    accepts: (id: string) => boolean,
    { weight, window }: { weight: number; window: number },
  ): Map<string, number> {
    const { ids, positions } = sequenceOf(state);
    const passed = new Map<string, number>();
    for (const [id, score] of scores) {
      const position = positions.get(id);
      if (position === undefined || !(score > 0)) continue;
      let share = score;
      for (let distance = 1; distance <= window; distance++) {
        share *= weight;
        const next = ids[position + distance];
        if (next === undefined) break;
        if (accepts(next)) passed.set(next, (passed.get(next) ?? 0) + share);
      }
    }
    return passed;
  }

  async function embedBatch(texts: string[]): Promise<Float32Array[]> {
    const vectors = await embedder.embed(texts, {
      abortSignal: AbortSignal.timeout(batchTimeoutMs),
    });
    if (!Array.isArray(vectors) || vectors.length !== texts.length) {
      throw new Error(
        `the embedder returned ${Array.isArray(vectors) ? vectors.length : 'no'} vectors for ${texts.length} texts`,
      );
    }
    for (const vector of vectors) {
      checkDimensions(vector);
      if (!(vector instanceof Float32Array) || vector.length !== embedder.dimensions) {
        throw new Error(`the embedder returned a vector that is not ${embedder.dimensions} floats`);
      }
      // Checked before caching: a garbage vector that got cached would keep the scope on the
      // BM25 fallback even after the embedder recovers.
      if (!vector.every(Number.isFinite)) {
        throw new Error('the embedder returned a vector with non-finite values');
      }
    }
    return vectors;
  }

  /**
   * Embeds every card of the scope that has no cached vector, puts the vectors in the index and
   * removes ids that left the scope. Runs in the background, batch by batch, so a search that
   * times out does not lose the work; returns how many cards it embedded.
   */
  async function runEmbeddingJob(state: ScopeState): Promise<number> {
    let embedded = 0;
    for (;;) {
      if (state.stale.size > 0) {
        const stale = [...state.stale];
        state.stale.clear();
        await index.remove(stale);
        for (const id of stale) state.indexed.delete(id);
      }
      // The work list is a set kept up to date by the sync: a batch never rescans every card.
      const batch: Entry[] = [];
      for (const id of state.pending) {
        const entry = state.entries.get(id);
        if (!entry || state.indexed.get(id) === entry.hash) {
          state.pending.delete(id);
          continue;
        }
        batch.push(entry);
        if (batch.length === batchSize) break;
      }
      if (batch.length === 0) return embedded;
      const missing = batch.filter((entry) => !embeddingCache.get(cacheKey(entry)));
      if (missing.length > 0) {
        const vectors = await embedBatch(missing.map((entry) => entry.text));
        missing.forEach((entry, position) => {
          embeddingCache.set(cacheKey(entry), vectors[position]!);
        });
        embedded += missing.length;
      }
      const items = batch.flatMap((entry) => {
        const vector = embeddingCache.get(cacheKey(entry));
        return vector ? [{ id: entry.card.id, vector, scopeKey: state.key }] : [];
      });
      await index.upsert(items);
      state.unsaved = true;
      for (const entry of batch) {
        state.indexed.set(entry.card.id, entry.hash);
        // A card changed again while its batch was embedded stays pending.
        if (state.entries.get(entry.card.id)?.hash === entry.hash)
          state.pending.delete(entry.card.id);
      }
    }
  }

  /** The scope's running job, or a new one; it clears itself when it settles. */
  function embeddingJob(state: ScopeState): Promise<number> {
    if (!state.job) {
      const job = runEmbeddingJob(state).finally(() => {
        if (state.job === job) state.job = undefined;
      });
      // A failed job is reported to the search that awaits it (and remembered, so the next
      // searches do not call a failing embedder again); nobody else must see a rejection.
      job.catch(recordFailure);
      state.job = job;
    }
    return state.job;
  }

  function needsEmbedding(state: ScopeState): boolean {
    return state.pending.size > 0 || state.stale.size > 0;
  }

  /** Cosine of every candidate card to the query, from the index, best first. */
  async function vectorScores(
    state: ScopeState,
    query: string,
    limit: number,
    signal: AbortSignal,
    candidateIds?: readonly string[],
  ): Promise<Map<string, number>> {
    if (needsEmbedding(state)) await raceSignal(embeddingJob(state), signal);
    const [queryVector] = await raceSignal(
      embedder.embed([query], { abortSignal: signal }),
      signal,
    );
    checkDimensions(queryVector);
    if (
      !(queryVector instanceof Float32Array) ||
      queryVector.length !== embedder.dimensions ||
      !queryVector.every(Number.isFinite)
    ) {
      throw new Error(
        `the embedder returned a query vector that is not ${embedder.dimensions} finite floats`,
      );
    }
    // Candidates are scored exactly when the index can (the default brute-force one can).
    const candidateHits = candidateIds
      ? scoreIndexedIds(index, queryVector, candidateIds, state.key)
          ?.sort((left, right) => right.score - left.score || (left.id < right.id ? -1 : 1))
          .slice(0, limit)
      : undefined;
    const hits =
      candidateHits ??
      (await raceSignal(index.query(queryVector, { k: limit, scopeKey: state.key }), signal));
    const scores = new Map<string, number>();
    for (const hit of hits) {
      const entry = state.entries.get(hit.id);
      // Skip ids the index still has from elsewhere, vectors of an older text of the card, and
      // cards with nothing in common with the query (they would still rank in a short list).
      if (!entry || state.indexed.get(hit.id) !== entry.hash || !(hit.score > 0)) continue;
      scores.set(hit.id, hit.score);
    }
    return scores;
  }

  function checkQueryOptions(options: MemorySearchQueryOptions): void {
    const { topK = 5, minScore = 0, mmr, recencyHalfLifeDays, typeBoosts, mode } = options;
    checkPositiveInteger('topK', topK);
    if (!Number.isFinite(minScore))
      throw invalid('minScore', `must be a finite number, got ${minScore}`);
    if (mode !== undefined) checkMode('mode', mode);
    if (mmr?.lambda !== undefined && !(mmr.lambda >= 0 && mmr.lambda <= 1)) {
      throw invalid('mmr.lambda', `must be in [0, 1], got ${mmr.lambda}`);
    }
    if (recencyHalfLifeDays !== undefined && !(recencyHalfLifeDays > 0)) {
      throw invalid('recencyHalfLifeDays', `must be a positive number, got ${recencyHalfLifeDays}`);
    }
    for (const [type, boost] of Object.entries(typeBoosts ?? {})) {
      if (!Number.isFinite(boost) || boost < 0) {
        throw invalid('typeBoosts', `must be finite numbers >= 0, got ${type} ${boost}`);
      }
    }
  }

  async function searchWithReport(
    scope: Scope,
    query: string,
    options: MemorySearchQueryOptions = {},
  ): Promise<{ hits: RetrievedMemory[]; report: MemorySearchReport }> {
    checkQueryOptions(options);
    const {
      topK = 5,
      minScore = 0,
      types,
      tags,
      mmr,
      recencyHalfLifeDays,
      typeBoosts,
      mode = defaultMode,
      abortSignal,
      dropLowConfidence = false,
    } = options;
    abortSignal?.throwIfAborted();
    if (typeof query !== 'string') throw invalid('query', `must be a string, got ${typeof query}`);
    if (dimensionError) throw dimensionError;
    const { state } = await syncCards(scope);
    abortSignal?.throwIfAborted();
    const report: MemorySearchReport = { mode, usedMode: mode, cards: state.entries.size };
    if (query.trim() === '' || state.entries.size === 0) return { hits: [], report };

    const typeSet = types ? new Set(types) : undefined;
    const tagSet = tags ? new Set(tags) : undefined;
    const accepts = (id: string) => {
      const card = state.entries.get(id)?.card;
      if (!card) return false;
      if (typeSet && !typeSet.has(card.type)) return false;
      return !tagSet || card.tags.some((tag) => tagSet.has(tag));
    };
    const filtered = typeSet !== undefined || tagSet !== undefined;
    const poolSize = Math.max(candidates, topK);

    // BM25 first: in a large scope with a lexical embedder, its matches are the vector side's
    // candidates.
    const restrictVectors = isLexical(embedder) && state.entries.size > LEXICAL_FULL_SCAN_LIMIT;
    const keywordMatches =
      mode === 'vector'
        ? []
        : state.bm25.search(
            query,
            restrictVectors ? LEXICAL_VECTOR_POOLS * poolSize : poolSize,
            filtered ? { filter: accepts } : {},
          );
    const vectorCandidates =
      restrictVectors && keywordMatches.length >= poolSize
        ? keywordMatches.map((hit) => hit.id)
        : undefined;

    let vector: Map<string, number> | undefined;
    const fallBack = (reason: 'timeout' | 'error', message: string) => {
      report.usedMode = 'bm25';
      report.fallback = { reason, message };
      onFallback?.({ type: 'retrieval-fallback', scope, from: mode, to: 'bm25', reason, message });
    };
    if (mode !== 'bm25' && failure && now() - failure.at < embedderRetryMs) {
      fallBack('error', failure.message);
    } else if (mode !== 'bm25') {
      const deadline = new AbortController();
      const timer = setTimeout(() => deadline.abort(new VectorTimeoutError(timeoutMs)), timeoutMs);
      const signal = abortSignal
        ? AbortSignal.any([deadline.signal, abortSignal])
        : deadline.signal;
      try {
        // With a filter, ask for every card of the scope: the index cannot filter by type or tag.
        const limit = filtered ? state.entries.size : poolSize;
        const scores = await vectorScores(state, query, limit, signal, vectorCandidates);
        vector = new Map([...scores].filter(([id]) => accepts(id)).slice(0, poolSize));
        failure = undefined;
      } catch (error) {
        // The caller giving up is not an embedder failure: let it through.
        if (abortSignal?.aborted) throw abortSignal.reason;
        recordFailure(error);
        if (EmbedderDimensionError.isInstance(error)) throw error;
        fallBack(error instanceof VectorTimeoutError ? 'timeout' : 'error', errorMessage(error));
      } finally {
        clearTimeout(timer);
      }
    }
    const usedMode = report.usedMode;

    const lexicalHits =
      usedMode === 'vector'
        ? []
        : mode === 'vector'
          ? // A vector search that fell back: BM25 was not run yet.
            state.bm25.search(query, poolSize, filtered ? { filter: accepts } : {})
          : keywordMatches.slice(0, poolSize);
    const lexical = new Map(lexicalHits.map((hit) => [hit.id, hit.score]));
    const ideal = state.bm25.idealScore(query) || 1;
    const normalisedLexical = new Map(
      lexicalHits.map((hit) => [hit.id, Math.min(1, hit.score / ideal)]),
    );

    let scores: Map<string, number>;
    if (usedMode === 'bm25') scores = normalisedLexical;
    else if (usedMode === 'vector') scores = new Map(vector);
    else if (fusion === 'rrf') {
      scores = reciprocalRankFusion(
        [
          { ids: lexicalHits.map((hit) => hit.id), weight: weights.bm25 },
          { ids: [...vector!.keys()], weight: weights.vector },
        ],
        { k: rrfK },
      );
    } else {
      const cosine = calibrateCosines(vector!, cosineCalibration);
      scores = weightedFusion([
        { scores: normalisedLexical, weight: weights.bm25 },
        { scores: cosine, weight: weights.vector },
      ]);
    }
    // Calibrated relevance, the same scale whatever the fusion: coverage of the query by BM25,
    // cosine, or their weighted mean.
    const totalWeight = weights.bm25 + weights.vector || 1;
    const relevanceOf = (id: string): number => {
      const coverage = normalisedLexical.get(id) ?? 0;
      const cosine = Math.max(0, vector?.get(id) ?? 0);
      if (usedMode === 'bm25') return coverage;
      if (usedMode === 'vector') return cosine;
      return (weights.bm25 * coverage + weights.vector * cosine) / totalWeight;
    };
    const passed = context ? passOnContext(state, scores, accepts, context) : undefined;
    if (passed) {
      // Sum, not max: a card that matches on its own and follows a match outranks either alone.
      for (const [id, share] of passed) scores.set(id, (scores.get(id) ?? 0) + share);
    }

    const currentTime = now();
    let ranked: RetrievedMemory[] = [];
    for (const [id, fused] of scores) {
      const card = state.entries.get(id)?.card;
      if (!card) continue;
      let score = fused * (typeBoosts?.[card.type] ?? 1);
      if (recencyHalfLifeDays !== undefined) {
        const updated = Date.parse(card.updatedAt);
        if (Number.isFinite(updated)) {
          const ageDays = Math.max(0, currentTime - updated) / 86_400_000;
          score *= 0.5 ** (ageDays / recencyHalfLifeDays);
        }
      }
      if (!(score > 0) || score < minScore) continue;
      const hit: RetrievedMemory = { card, score };
      const lexicalScore = lexical.get(id);
      if (lexicalScore !== undefined) hit.bm25 = lexicalScore;
      const vectorScore = vector?.get(id);
      if (vectorScore !== undefined) hit.vector = vectorScore;
      const contextScore = passed?.get(id);
      if (contextScore !== undefined) hit.context = contextScore;
      if (report.fallback) hit.keywordOnly = true;
      const sharedContext = usedMode === 'hybrid' && fusion === 'rrf' ? 0 : (contextScore ?? 0);
      if (relevanceOf(id) + sharedContext < relevanceFloor) {
        if (dropLowConfidence) continue;
        hit.lowConfidence = true;
      }
      ranked.push(hit);
    }
    ranked.sort(
      (left, right) =>
        right.score - left.score ||
        (left.card.id < right.card.id ? -1 : left.card.id > right.card.id ? 1 : 0),
    );

    if (mmr && ranked.length > 1) {
      ranked = diversify(ranked, state, topK, mmr.lambda ?? 0.7, usedMode !== 'bm25');
    }
    return { hits: ranked.slice(0, topK), report };
  }

  /** MMR over the ranked hits, with cosine between card vectors, or word overlap without them. */
  function diversify(
    ranked: RetrievedMemory[],
    state: ScopeState,
    topK: number,
    lambda: number,
    useVectors: boolean,
  ): RetrievedMemory[] {
    const vectors = new Map<string, Float32Array>();
    const termSets = new Map<string, Set<string>>();
    for (const hit of ranked) {
      const entry = state.entries.get(hit.card.id)!;
      const cached = useVectors ? embeddingCache.get(cacheKey(entry)) : undefined;
      if (cached) vectors.set(hit.card.id, cached);
      else termSets.set(hit.card.id, new Set(analyzer(entry.text)));
    }
    const termsOf = (id: string) => {
      let terms = termSets.get(id);
      if (!terms) {
        terms = new Set(analyzer(state.entries.get(id)!.text));
        termSets.set(id, terms);
      }
      return terms;
    };
    return maximalMarginalRelevance(ranked, {
      k: topK,
      lambda,
      relevance: (hit) => hit.score,
      similarity: (left, right) => {
        const leftVector = vectors.get(left.card.id);
        const rightVector = vectors.get(right.card.id);
        if (leftVector && rightVector) return Math.max(0, dot(leftVector, rightVector));
        const leftTerms = termsOf(left.card.id);
        const rightTerms = termsOf(right.card.id);
        let shared = 0;
        for (const term of leftTerms) if (rightTerms.has(term)) shared++;
        const union = leftTerms.size + rightTerms.size - shared;
        return union === 0 ? 0 : shared / union;
      },
    });
  }

  /**
   * Saves the scope's indexes beside the cards (file stores) when they changed since they were
   * loaded or saved, so the next process loads them instead of analysing and embedding again.
   * Only from `sync`: a search must not pay for writing the whole index.
   */
  async function saveIndexes(state: ScopeState, scope: Scope): Promise<void> {
    if (!state.saved || !state.unsaved || state.job) return;
    state.unsaved = false;
    const saved = await saveScopeIndex({
      location: state.saved,
      scope,
      scopeKey: state.key,
      embedder,
      bm25: state.bm25,
      index,
      cards: [...state.entries.values()].map((entry) => ({
        id: entry.card.id,
        hash: entry.hash,
        embedded: state.indexed.get(entry.card.id) === entry.hash,
      })),
      onIndexEvent,
    });
    if (!saved) state.unsaved = true;
  }

  return {
    async search(scope, query, options) {
      return (await searchWithReport(scope, query, options)).hits;
    },
    searchWithReport,
    async sync(scope) {
      if (dimensionError) throw dimensionError;
      const { state, added, updated, removed } = await syncCards(scope);
      const report: MemorySyncReport = {
        cards: state.entries.size,
        added,
        updated,
        removed,
        embedded: 0,
      };
      // A BM25-only search never needs vectors.
      if (defaultMode !== 'bm25') {
        try {
          // A job embeds what was pending when it ran; a second pass catches cards a concurrent
          // search added meanwhile.
          for (let pass = 0; pass < 3 && needsEmbedding(state); pass++) {
            report.embedded += await embeddingJob(state);
          }
        } catch (error) {
          recordFailure(error);
          if (EmbedderDimensionError.isInstance(error)) throw error;
          report.vectorError = errorMessage(error);
        }
        if (!report.vectorError) failure = undefined;
      }
      await saveIndexes(state, scope);
      return report;
    },
    clear() {
      scopes.clear();
    },
  };
}

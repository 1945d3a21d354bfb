import type { Scope } from '../contracts/index.js';
import { requireOptions } from '../validation/index.js';
import { createCandidateSearch } from './candidate-search.js';
import { createCardEmbeddings, errorMessage } from './card-embeddings.js';
import { queryWithDates, questionDateRanges } from './date-expressions.js';
import { EmbedderDimensionError } from './embedder-dimension-error.js';
import type {
  MemorySearch,
  MemorySearchOptions,
  MemorySearchQueryOptions,
  MemorySearchReport,
  MemorySyncReport,
  RetrievedMemory,
} from './memory-search-types.js';
import { rankHits } from './rank-hits.js';
import { createScopeSync } from './scope-sync.js';
import { SearchIndexFileError } from './search-index-error.js';
import { checkQueryOptions, invalid, resolveSearchOptions } from './search-settings.js';
import { candidatePool } from './sequence-context.js';

export type {
  EmbeddingCache,
  MemorySearch,
  MemorySearchOptions,
  MemorySearchQueryOptions,
  MemorySearchReport,
  MemorySyncReport,
  RetrievalFallbackEvent,
  RetrievalMode,
  RetrievedMemory,
} from './memory-search-types.js';
export type { SearchIndexEvent } from './saved-search-index.js';

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
 * changed since; a damaged or stale file is rebuilt and reported to `onIndexEvent`.
 *
 * The parts, each in its own file: `search-settings` (options and defaults), `scope-sync` (the
 * cards and BM25 of each scope, saved indexes), `card-embeddings` (the embedding job and the
 * embedder's health), `candidate-search` (each side's candidates, fallback), `rank-hits`
 * (fusion, `sequence-context`, boosts, relevance floor, MMR), `date-expressions` (`dates`).
 */
export function createMemorySearch(options: MemorySearchOptions): MemorySearch {
  requireOptions(options, 'createMemorySearch');
  const settings = resolveSearchOptions(options);
  const scopes = createScopeSync(settings);
  const embeddings = createCardEmbeddings(settings);
  const searchCandidates = createCandidateSearch(settings, embeddings);

  /**
   * Runs `work` on the scope, and once more after a card of the scope's saved index turned out
   * damaged when it was used (cards are read and checked on use): the scope is rebuilt from the
   * store and saved over the damaged file, so the next process loads a good one.
   */
  async function recovering<Result>(scope: Scope, work: () => Promise<Result>): Promise<Result> {
    try {
      return await work();
    } catch (error) {
      if (!SearchIndexFileError.isInstance(error)) throw error;
      scopes.discardSaved(scope, error);
    }
    const { state } = await scopes.syncCards(scope);
    await scopes.saveIndexes(state, scope);
    return work();
  }

  async function searchOnce(
    scope: Scope,
    query: string,
    queryOptions: MemorySearchQueryOptions = {},
  ): Promise<{ hits: RetrievedMemory[]; report: MemorySearchReport }> {
    checkQueryOptions(queryOptions);
    const { topK = 5, types, tags, mode = settings.mode, abortSignal } = queryOptions;
    abortSignal?.throwIfAborted();
    if (typeof query !== 'string') throw invalid('query', `must be a string, got ${typeof query}`);
    if (embeddings.dimensionError) throw embeddings.dimensionError;
    const { state } = await scopes.syncCards(scope);
    abortSignal?.throwIfAborted();
    const report: MemorySearchReport = { mode, usedMode: mode, cards: state.entries.size };
    if (query.trim() === '' || state.entries.size === 0) return { hits: [], report };

    const typeSet = types ? new Set(types) : undefined;
    const tagSet = tags ? new Set(tags) : undefined;
    const accepts =
      typeSet || tagSet
        ? (id: string) => {
            const card = state.entries.get(id)?.card;
            if (!card) return false;
            if (typeSet && !typeSet.has(card.type)) return false;
            return !tagSet || card.tags.some((tag) => tagSet.has(tag));
          }
        : undefined;
    const searchQuery = settings.dates ? queryWithDates(query) : query;
    const candidates = await searchCandidates(state, {
      scope,
      query: searchQuery,
      mode,
      poolSize: Math.max(candidatePool(state, settings), topK),
      accepts,
      abortSignal,
    });
    report.usedMode = candidates.usedMode;
    if (candidates.fallback) report.fallback = candidates.fallback;
    const namedDates =
      settings.dates && settings.dates.namedDateBoost > 0
        ? questionDateRanges(query, new Date(settings.now()))
        : [];
    const hits = rankHits(state, searchQuery, candidates, settings, embeddings.cachedVector, {
      ...queryOptions,
      topK,
      accepts,
      namedDates,
    });
    return { hits, report };
  }

  const searchWithReport: MemorySearch['searchWithReport'] = (scope, query, queryOptions) =>
    recovering(scope, () => searchOnce(scope, query, queryOptions));

  async function syncOnce(scope: Scope): Promise<MemorySyncReport> {
    if (embeddings.dimensionError) throw embeddings.dimensionError;
    const { state, added, updated, removed } = await scopes.syncCards(scope);
    const report: MemorySyncReport = {
      cards: state.entries.size,
      added,
      updated,
      removed,
      embedded: 0,
    };
    // A BM25-only search never needs vectors.
    if (settings.mode !== 'bm25') {
      try {
        // A job embeds what was pending when it ran; a second pass catches cards a concurrent
        // search added meanwhile.
        for (let pass = 0; pass < 3 && embeddings.needsEmbedding(state); pass++) {
          report.embedded += await embeddings.job(state);
        }
      } catch (error) {
        if (SearchIndexFileError.isInstance(error)) throw error;
        embeddings.recordFailure(error);
        if (EmbedderDimensionError.isInstance(error)) throw error;
        report.vectorError = errorMessage(error);
      }
      if (!report.vectorError) embeddings.recovered();
    }
    await scopes.saveIndexes(state, scope);
    return report;
  }

  return {
    async search(scope, query, queryOptions) {
      return (await searchWithReport(scope, query, queryOptions)).hits;
    },
    searchWithReport,
    sync: (scope) => recovering(scope, () => syncOnce(scope)),
    clear() {
      scopes.clear();
    },
  };
}

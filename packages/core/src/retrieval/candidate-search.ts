/**
 * The candidates of one query, per mode, before fusion: BM25's best matches and the vector
 * side's cosines. The vector side runs under `timeoutMs` and falls back to BM25 alone (reported
 * to `onFallback`) when the embedder is slow, failing or paused; with a lexical embedder in a
 * large scope it scores only BM25's best matches.
 */
import type { MemoryIndexHit, Scope } from '../contracts/index.js';
import type { Bm25Hit } from './bm25-index.js';
import { scoreIndexedIds } from './brute-force-index.js';
import { type CardEmbeddings, errorMessage, VectorTimeoutError } from './card-embeddings.js';
import { EmbedderDimensionError } from './embedder-dimension-error.js';
import type { RetrievalMode } from './memory-search-types.js';
import { cosine, normalizedVector } from './normalized-vector.js';
import { raceSignal } from './race-signal.js';
import type { ScopeState } from './scope-state.js';
import { SearchIndexFileError } from './search-index-error.js';
import type { SearchSettings } from './search-settings.js';

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
export const LEXICAL_FULL_SCAN_LIMIT = 5000;

export interface CandidateQuery {
  scope: Scope;
  query: string;
  /** The mode asked for. */
  mode: RetrievalMode;
  /** How many candidates each side contributes. */
  poolSize: number;
  /** The query's type and tag filters, when it has any. */
  accepts?: (id: string) => boolean;
  abortSignal?: AbortSignal;
}

export interface Candidates {
  /** BM25's best matches, at most `poolSize`, best first (none when the vector side answered alone). */
  lexicalHits: Bm25Hit[];
  /** The vector side's cosines, at most `poolSize`, best first; undefined after a fallback. */
  vector?: Map<string, number>;
  /** The mode that produced the candidates: `bm25` after a fallback. */
  usedMode: RetrievalMode;
  fallback?: { reason: 'timeout' | 'error'; message: string };
}

export type CandidateSearch = (state: ScopeState, query: CandidateQuery) => Promise<Candidates>;

export function createCandidateSearch(
  { index, lexical, timeoutMs, onFallback }: SearchSettings,
  embeddings: CardEmbeddings,
): CandidateSearch {
  /**
   * Cosine of each candidate to the query: from the index when it holds the vector of the card's
   * current text, else embedded now (cards loaded from a saved index without their vectors, see
   * `saved-search-index.ts`). Undefined when the index cannot score given ids.
   */
  async function candidateScores(
    state: ScopeState,
    queryVector: Float32Array,
    candidateIds: readonly string[],
    signal: AbortSignal,
  ): Promise<MemoryIndexHit[] | undefined> {
    const indexed = scoreIndexedIds(index, queryVector, candidateIds, state.key);
    if (!indexed) return undefined;
    const hits = indexed.filter((hit) => {
      const entry = state.entries.get(hit.id);
      return entry !== undefined && state.indexed.get(hit.id) === entry.hash;
    });
    const scored = new Set(hits.map((hit) => hit.id));
    const missing = candidateIds.flatMap((id) => {
      const entry = state.entries.get(id);
      return entry && !scored.has(id) ? [entry] : [];
    });
    if (missing.length > 0) {
      const query = normalizedVector(queryVector, queryVector.length, 'vector');
      const vectors = await embeddings.vectorsOf(missing, signal);
      missing.forEach((entry, position) => {
        hits.push({ id: entry.card.id, score: cosine(query, vectors[position]!) });
      });
    }
    return hits;
  }

  /** Cosine of every candidate card to the query, from the index, best first. */
  async function vectorScores(
    state: ScopeState,
    query: string,
    limit: number,
    signal: AbortSignal,
    candidateIds?: readonly string[],
  ): Promise<Map<string, number>> {
    if (embeddings.needsEmbedding(state)) await raceSignal(embeddings.job(state), signal);
    const queryVector = await embeddings.embedQuery(query, signal);
    // Candidates are scored exactly when the index can (the default brute-force one can).
    const candidateHits = candidateIds
      ? (await candidateScores(state, queryVector, candidateIds, signal))
          ?.sort((left, right) => right.score - left.score || (left.id < right.id ? -1 : 1))
          .slice(0, limit)
      : undefined;
    if (!candidateHits && state.indexed.size + state.pending.size < state.entries.size) {
      // A full scan needs every vector in the index: embed the cards whose vectors were left out.
      for (const [id, entry] of state.entries) {
        if (state.indexed.get(id) !== entry.hash) state.pending.add(id);
      }
      await raceSignal(embeddings.job(state), signal);
    }
    const hits =
      candidateHits ??
      (await raceSignal(index.query(queryVector, { k: limit, scopeKey: state.key }), signal));
    const scores = new Map<string, number>();
    for (const hit of hits) {
      const entry = state.entries.get(hit.id);
      // Skip ids the index still has from elsewhere, vectors of an older text of the card, and
      // cards with nothing in common with the query (they would still rank in a short list).
      if (!entry || !(hit.score > 0)) continue;
      if (!candidateHits && state.indexed.get(hit.id) !== entry.hash) continue;
      scores.set(hit.id, hit.score);
    }
    return scores;
  }

  return async (state, { scope, query, mode, poolSize, accepts, abortSignal }) => {
    const bm25Options = accepts ? { filter: accepts } : {};
    // BM25 first: in a large scope with a lexical embedder, its matches are the vector side's
    // candidates.
    const restrictVectors = lexical && state.entries.size > LEXICAL_FULL_SCAN_LIMIT;
    const keywordMatches =
      mode === 'vector'
        ? []
        : state.bm25.search(
            query,
            restrictVectors ? LEXICAL_VECTOR_POOLS * poolSize : poolSize,
            bm25Options,
          );
    const vectorCandidates =
      restrictVectors && keywordMatches.length >= poolSize
        ? keywordMatches.map((hit) => hit.id)
        : undefined;

    const candidates: Candidates = { lexicalHits: [], usedMode: mode };
    const fallBack = (reason: 'timeout' | 'error', message: string) => {
      candidates.usedMode = 'bm25';
      candidates.fallback = { reason, message };
      onFallback?.({ type: 'retrieval-fallback', scope, from: mode, to: 'bm25', reason, message });
    };
    const pausedBy = mode === 'bm25' ? undefined : embeddings.pausedBy();
    if (pausedBy !== undefined) fallBack('error', pausedBy);
    else if (mode !== 'bm25') {
      const deadline = new AbortController();
      const timer = setTimeout(() => deadline.abort(new VectorTimeoutError(timeoutMs)), timeoutMs);
      const signal = abortSignal
        ? AbortSignal.any([deadline.signal, abortSignal])
        : deadline.signal;
      try {
        // With a filter, ask for every card of the scope: the index cannot filter by type or tag.
        const limit = accepts ? state.entries.size : poolSize;
        const scores = await vectorScores(state, query, limit, signal, vectorCandidates);
        candidates.vector = new Map(
          [...scores].filter(([id]) => !accepts || accepts(id)).slice(0, poolSize),
        );
        embeddings.recovered();
      } catch (error) {
        // The caller giving up is not an embedder failure: let it through.
        if (abortSignal?.aborted) throw abortSignal.reason;
        // A damaged saved card: the search rebuilds the scope (see `memory-search.ts`).
        if (SearchIndexFileError.isInstance(error)) throw error;
        embeddings.recordFailure(error);
        if (EmbedderDimensionError.isInstance(error)) throw error;
        fallBack(VectorTimeoutError.isInstance(error) ? 'timeout' : 'error', errorMessage(error));
      } finally {
        clearTimeout(timer);
      }
    }
    candidates.lexicalHits =
      candidates.usedMode === 'vector'
        ? []
        : mode === 'vector'
          ? // A vector search that fell back: BM25 was not run yet.
            state.bm25.search(query, poolSize, bm25Options)
          : keywordMatches.slice(0, poolSize);
    return candidates;
  };
}

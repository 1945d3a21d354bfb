/**
 * From one query's candidates to its hits: fusion of the BM25 and vector sides, what
 * `sequenceContext` passes on, type, speaker, time-question and recency boosts, `minScore`, the
 * relevance floor (`lowConfidence`), the order, and MMR.
 */

import type { Candidates } from './candidate-search.js';
import {
  fallsInDateRanges,
  isTimeQuestion,
  mentionsTime,
  type QuestionDateRange,
} from './date-expressions.js';
import { calibrateCosines, reciprocalRankFusion, weightedFusion } from './fusion.js';
import type { MaximalMarginalRelevanceOptions } from './maximal-marginal-relevance.js';
import { maximalMarginalRelevance } from './maximal-marginal-relevance.js';
import type { MemorySearchQueryOptions, RetrievedMemory } from './memory-search-types.js';
import { type Entry, entryTime, type ScopeState } from './scope-state.js';
import type { SearchSettings } from './search-settings.js';
import { passOnContext, speakerMatcher } from './sequence-context.js';

export type FusionSettings = Pick<
  SearchSettings,
  'fusion' | 'weights' | 'cosineCalibration' | 'rrfK'
>;

export interface FusedScores {
  /** The fused score of every candidate. */
  scores: Map<string, number>;
  /** BM25 scores divided by the query's `idealScore` (capped at 1): the share of the query covered. */
  coverage: Map<string, number>;
  /**
   * A candidate's calibrated relevance, the same scale whatever the fusion: its coverage, its
   * cosine, or their weighted mean in hybrid mode.
   */
  relevanceOf(id: string): number;
}

/** Fuses the two sides of `candidates`; `idealScore` is BM25's score of a card with every query word. */
export function fuseCandidates(
  { lexicalHits, vector, usedMode }: Candidates,
  idealScore: number,
  { fusion, weights, cosineCalibration, rrfK }: FusionSettings,
): FusedScores {
  const ideal = idealScore || 1;
  const coverage = new Map(lexicalHits.map((hit) => [hit.id, Math.min(1, hit.score / ideal)]));
  let scores: Map<string, number>;
  if (usedMode === 'bm25') scores = new Map(coverage);
  else if (usedMode === 'vector') scores = new Map(vector);
  else if (fusion === 'rrf') {
    scores = reciprocalRankFusion(
      [
        { ids: lexicalHits.map((hit) => hit.id), weight: weights.bm25 },
        { ids: [...(vector?.keys() ?? [])], weight: weights.vector },
      ],
      { k: rrfK },
    );
  } else {
    scores = weightedFusion([
      { scores: coverage, weight: weights.bm25 },
      { scores: calibrateCosines(vector ?? new Map(), cosineCalibration), weight: weights.vector },
    ]);
  }
  const totalWeight = weights.bm25 + weights.vector || 1;
  const relevanceOf = (id: string): number => {
    const covered = coverage.get(id) ?? 0;
    const cosine = Math.max(0, vector?.get(id) ?? 0);
    if (usedMode === 'bm25') return covered;
    if (usedMode === 'vector') return cosine;
    return (weights.bm25 * covered + weights.vector * cosine) / totalWeight;
  };
  return { scores, coverage, relevanceOf };
}

export type RankOptions = Pick<
  MemorySearchQueryOptions,
  'minScore' | 'mmr' | 'recencyHalfLifeDays' | 'typeBoosts' | 'dropLowConfidence'
> & {
  topK: number;
  /** The query's type and tag filters, when it has any. */
  accepts?: (id: string) => boolean;
  /** The dates the query names (`questionDateRanges`), with `dates.namedDateBoost`. */
  namedDates?: readonly QuestionDateRange[];
};

/** The best `topK` hits of the scope for the query's candidates, best first. */
export function rankHits(
  state: ScopeState,
  query: string,
  candidates: Candidates,
  settings: SearchSettings,
  cachedVector: (entry: Entry) => Float32Array | undefined,
  {
    topK,
    minScore = 0,
    mmr,
    recencyHalfLifeDays,
    typeBoosts,
    dropLowConfidence = false,
    accepts = () => true,
    namedDates = [],
  }: RankOptions,
): RetrievedMemory[] {
  const { usedMode, vector, fallback } = candidates;
  const { scores, relevanceOf } = fuseCandidates(
    candidates,
    state.bm25.idealScore(query),
    settings,
  );
  const lexical = new Map(candidates.lexicalHits.map((hit) => [hit.id, hit.score]));
  const passed = settings.context
    ? passOnContext(state, scores, accepts, settings.context)
    : undefined;
  if (passed) {
    // Sum, not max: a card that matches on its own and follows a match outranks either alone.
    for (const [id, share] of passed) scores.set(id, (scores.get(id) ?? 0) + share);
  }
  // Rank fusion's scale is not relevance, so what it passes on does not count for the floor.
  const contextCounts = !(usedMode === 'hybrid' && settings.fusion === 'rrf');

  const currentTime = settings.now();
  // A question about when: cards that say when (`dates`) are more likely its answer.
  const timeBoost =
    settings.dates && settings.dates.timeQuestionBoost > 0 && isTimeQuestion(query)
      ? 1 + settings.dates.timeQuestionBoost
      : 1;
  // A question about someone: what they said is more likely its answer.
  const speakerBoost = settings.context?.speakerBoost ?? 0;
  const saidByNamed =
    speakerBoost > 0 ? speakerMatcher(query, sequenceTexts(state, scores, settings)) : undefined;
  let ranked: RetrievedMemory[] = [];
  for (const [id, fused] of scores) {
    const entry = state.entries.get(id);
    if (!entry) continue;
    const card = entry.card;
    let score = fused * (typeBoosts?.[card.type] ?? 1);
    if (saidByNamed && settings.context!.types.has(card.type) && saidByNamed(entry.text)) {
      score *= 1 + speakerBoost;
    }
    if (timeBoost !== 1 && mentionsTime(entry.text)) score *= timeBoost;
    // A question that names a date: cards written then, or that say something happened then.
    if (namedDates.length > 0 && fallsInDateRanges(namedDates, entryTime(entry), entry.dateTerms)) {
      score *= 1 + settings.dates!.namedDateBoost;
    }
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
    if (fallback) hit.keywordOnly = true;
    const sharedContext = contextCounts ? (contextScore ?? 0) : 0;
    if (relevanceOf(id) + sharedContext < settings.relevanceFloor) {
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
    ranked = diversify(ranked, state, {
      k: topK,
      lambda: mmr.lambda ?? 0.7,
      vectorOf: usedMode === 'bm25' ? () => undefined : cachedVector,
      analyzer: settings.analyzer,
    });
  }
  return ranked.slice(0, topK);
}

/** The texts of the candidates that belong to the sequence, whose speakers `speakerBoost` reads. */
function* sequenceTexts(
  state: ScopeState,
  scores: ReadonlyMap<string, number>,
  settings: SearchSettings,
): Iterable<string> {
  for (const id of scores.keys()) {
    const entry = state.entries.get(id);
    if (entry && settings.context!.types.has(entry.card.type)) yield entry.text;
  }
}

function dot(left: Float32Array, right: Float32Array): number {
  let sum = 0;
  const length = Math.min(left.length, right.length);
  for (let position = 0; position < length; position++) sum += left[position]! * right[position]!;
  return sum;
}

/** MMR over the ranked hits, with cosine between card vectors, or word overlap without them. */
function diversify(
  ranked: RetrievedMemory[],
  state: ScopeState,
  {
    k,
    lambda,
    vectorOf,
    analyzer,
  }: Pick<MaximalMarginalRelevanceOptions<RetrievedMemory>, 'k' | 'lambda'> & {
    vectorOf: (entry: Entry) => Float32Array | undefined;
    analyzer: SearchSettings['analyzer'];
  },
): RetrievedMemory[] {
  const vectors = new Map<string, Float32Array>();
  const termSets = new Map<string, Set<string>>();
  for (const hit of ranked) {
    const entry = state.entries.get(hit.card.id)!;
    const cached = vectorOf(entry);
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
    k,
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

/**
 * The public shapes of memory search: its options, the per-query options, the hits and reports,
 * and the `MemorySearch` contract itself. The behaviour lives in `memory-search.ts` and the parts
 * it composes.
 */
import type {
  Embedder,
  MemoryCard,
  MemoryCardType,
  MemoryIndex,
  MemoryStore,
  Scope,
} from '../contracts/index.js';
import type { TextAnalyzer } from '../text/index.js';
import type { CosineCalibration } from './fusion.js';
import type { SearchIndexEvent } from './saved-search-index.js';

export type RetrievalMode = 'hybrid' | 'bm25' | 'vector';

/** Where vectors are kept between searches. A `Map` works; a persistent one saves re-embedding. */
export interface EmbeddingCache {
  get(key: string): Float32Array | undefined;
  set(key: string, vector: Float32Array): unknown;
  delete(key: string): unknown;
}

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
   * With `sequenceContext`, a card can rank through its neighbours' scores, so the pool is wider:
   * on LoCoMo's tuning conversations 100 found 0.005 more of hit@5 than 50, and more found none.
   * @default 100 in a scope with a sequence (see `sequenceContext`), 50 otherwise
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
   * The text of a card that is indexed and embedded (with `dates`, BM25 also indexes the card's
   * date terms after it).
   * @default content followed by the tags
   */
  cardText?: (card: MemoryCard) => string;
  /**
   * For cards that are records of what happened, in order, such as the turns of a transcript
   * (one `episode` card per turn): each card also scores through its neighbours. A card passes on
   * `weight ^ d` of its score to the card `d` places after it and `backwardWeight ^ d` to the card
   * `d` places before it (d up to `window`). A turn often answers the one before it ("5 years
   * already!" after "How long have you lived in Porto?"), so a question that matches the asking turn
   * finds the answer too; less often the answer comes first and the matching turn reacts to it.
   * A card that asks something (its text has a question mark) passes `questionWeight` instead of
   * `weight` to the card right after it: a later question about the same thing tends to repeat
   * the words of the question asked in the conversation, not those of its answer.
   * The sequence is the scope's cards of `types`, ordered by `createdAt` (a draft's
   * `occurredAt`), then the store's list order; cards of other types are not part of it and
   * neither pass nor receive anything. Self-contained cards (facts, decisions, preferences) are
   * left out by default because their neighbours are unrelated: on LoCoMo's turns added as such
   * cards in a shuffled order, passing context cost 0.04 of hit@5.
   *
   * A record that starts with a speaker label ("Samantha: …") and a query about that speaker
   * ("What did Samantha paint?") get the score multiplied by `1 + speakerBoost`: a question about
   * someone is most often answered by what they said. The query is about the speaker it names
   * first, and those joined to them by "and": "What did Nate make for Joanna?" is about Nate,
   * "How do Jon and Gina relax?" about both.
   *
   * `weight`, `questionWeight` and `backwardWeight` follow the embedder's `kind`, as the fusion
   * `weights` do: each pair was chosen by leave-one-conversation-out cross-validation on LoCoMo
   * (`pnpm bench retrieval-locomo`: tuned on four conversations, measured on the fifth, five
   * times), with the hashing embedder for a lexical one and `@ctxmem/local-embedder` for the
   * others. `window` and `speakerBoost` were chosen in earlier rounds on three of those
   * conversations.
   * @default { weight: 0.5, questionWeight: 0.7, backwardWeight: 0.3, window: 3, speakerBoost: 1, types: ['episode'] } with a lexical embedder (the default hashing one); { weight: 0.4, questionWeight: 0.9, backwardWeight: 0.2, … } with another; `false` turns it off
   */
  sequenceContext?:
    | {
        weight?: number;
        window?: number;
        backwardWeight?: number;
        questionWeight?: number;
        speakerBoost?: number;
        types?: readonly MemoryCardType[];
      }
    | false;
  /**
   * Dates in retrieval. BM25 indexes each card with the month and year of its `createdAt` and of
   * the dates its text points to: numeric dates ("2023-05-08") and, against `createdAt`, relative
   * expressions ("yesterday", "last year", "two weeks ago", "last Friday"), so "what did she do in
   * May 2023?" finds what was said, or said to have happened, then. Numeric dates in a query are
   * read the same way. A question about when something happened ("When did…", "What year…", "How
   * long…") multiplies the score of cards that mention a time (a relative expression, a weekday,
   * a month, a year or a unit of time) by `1 + timeQuestionBoost`. Vectors are computed from the
   * card text alone. A question that names a date multiplies the score of the cards written
   * then, or whose text points to then, by `1 + namedDateBoost`: a day ("on 9 November, 2022",
   * "October 13, 2023"), the week before or after one, a month ("in May 2023"; "in May" is May of
   * any year), a year, and, resolved against `now`, English relative expressions ("yesterday",
   * "last week", "two months ago", "last year"). For cards added as things happen (`createdAt` is
   * when they were said), such as the turns of a conversation. `timeQuestionBoost` was chosen in
   * an earlier round, `namedDateBoost` by leave-one-conversation-out on LoCoMo (see
   * `sequenceContext`). `false` turns all of it off.
   * @default { timeQuestionBoost: 0.2, namedDateBoost: 0.5 }
   */
  dates?: { timeQuestionBoost?: number; namedDateBoost?: number } | false;
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
   * Current time in milliseconds (for recency boosts, and the relative dates of questions).
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
  /** The part of `score` passed on by the neighbouring cards (with `sequenceContext`). */
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

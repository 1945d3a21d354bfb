/**
 * The options of a memory search, checked once and resolved to their defaults, and the checks of
 * each query's options. Every other part of the search takes the resolved `SearchSettings`, so a
 * default is decided here and nowhere else.
 */
import { KeyedLru } from '../cache/index.js';
import type { Embedder, MemoryCard, MemoryCardType } from '../contracts/index.js';
import { MEMORY_CARD_TYPES } from '../contracts/index.js';
import { InvalidArgumentError } from '../errors/index.js';
import { analyzeText } from '../text/index.js';
import { createBm25Index } from './bm25-index.js';
import { createBruteForceIndex } from './brute-force-index.js';
import { createHashingEmbedder } from './hashing-embedder.js';
import type {
  MemorySearchOptions,
  MemorySearchQueryOptions,
  RetrievalMode,
} from './memory-search-types.js';

/** A search's options with every default applied, as the search's parts use them. */
export type SearchSettings = Required<
  Omit<MemorySearchOptions, 'bm25' | 'sequenceContext' | 'dates' | 'onFallback'>
> &
  Pick<MemorySearchOptions, 'onFallback'> & {
    /** The pool of each side in a scope with a sequence (`candidates` when it was given). */
    sequenceCandidates: number;
    /** BM25's resolved parameters. */
    bm25: { k1: number; b: number };
    /** `sequenceContext` resolved, or undefined when it is off. */
    context: SequenceContextSettings | undefined;
    /** `dates` resolved, or undefined when they are off. */
    dates: DateSettings | undefined;
    /** Whether the embedder only re-encodes the words (see `isLexical`). */
    lexical: boolean;
    /** Whether `cardText` is the default one (saved indexes are only used with it). */
    defaultCardText: boolean;
  };

const MODES: readonly RetrievalMode[] = ['hybrid', 'bm25', 'vector'];

export function invalid(argument: string, message: string): InvalidArgumentError {
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

export interface SequenceContextSettings {
  weight: number;
  window: number;
  backwardWeight: number;
  /** What a card that asks a question passes to the card right after it. */
  questionWeight: number;
  /** The card types that form the sequence. */
  types: ReadonlySet<MemoryCardType>;
  speakerBoost: number;
}

/**
 * What the episode path passes on, by the embedder's kind: chosen by leave-one-conversation-out
 * cross-validation on LoCoMo (`pnpm bench retrieval-locomo`), separately for the hashing embedder
 * and a sentence model, as the fusion weights are.
 */
const SEQUENCE_DEFAULTS = {
  lexical: { weight: 0.5, questionWeight: 0.7, backwardWeight: 0.3 },
  semantic: { weight: 0.4, questionWeight: 0.9, backwardWeight: 0.2 },
} as const;

function checkSequenceContext(
  {
    weight,
    window = 3,
    backwardWeight,
    questionWeight,
    types = ['episode'],
    speakerBoost = 1,
  }: NonNullable<Exclude<MemorySearchOptions['sequenceContext'], false>>,
  lexical: boolean,
): SequenceContextSettings {
  const defaults = SEQUENCE_DEFAULTS[lexical ? 'lexical' : 'semantic'];
  weight ??= defaults.weight;
  backwardWeight ??= defaults.backwardWeight;
  questionWeight ??= defaults.questionWeight;
  if (!(weight > 0 && weight <= 1)) {
    throw invalid('sequenceContext.weight', `must be in (0, 1], got ${weight}`);
  }
  if (!(questionWeight >= 0 && questionWeight <= 1)) {
    throw invalid('sequenceContext.questionWeight', `must be in [0, 1], got ${questionWeight}`);
  }
  if (!(backwardWeight >= 0 && backwardWeight <= 1)) {
    throw invalid('sequenceContext.backwardWeight', `must be in [0, 1], got ${backwardWeight}`);
  }
  checkPositiveInteger('sequenceContext.window', window);
  if (!Array.isArray(types) || types.some((type) => !MEMORY_CARD_TYPES.includes(type))) {
    throw invalid(
      'sequenceContext.types',
      `must be an array of card types (${MEMORY_CARD_TYPES.join(', ')}), got ${JSON.stringify(types)}`,
    );
  }
  if (!(Number.isFinite(speakerBoost) && speakerBoost >= 0)) {
    throw invalid(
      'sequenceContext.speakerBoost',
      `must be a finite number >= 0, got ${speakerBoost}`,
    );
  }
  return { weight, window, backwardWeight, questionWeight, types: new Set(types), speakerBoost };
}

export interface DateSettings {
  timeQuestionBoost: number;
  namedDateBoost: number;
}

function checkDates({
  timeQuestionBoost = 0.2,
  namedDateBoost = 0.5,
}: NonNullable<Exclude<MemorySearchOptions['dates'], false>>): DateSettings {
  for (const [name, value] of [
    ['timeQuestionBoost', timeQuestionBoost],
    ['namedDateBoost', namedDateBoost],
  ] as const) {
    if (!(Number.isFinite(value) && value >= 0)) {
      throw invalid(`dates.${name}`, `must be a finite number >= 0, got ${value}`);
    }
  }
  return { timeQuestionBoost, namedDateBoost };
}

/** A lexical embedder, such as the built-in hashing one: fusion leans on BM25 (see `weights`). */
export function isLexical(embedder: Embedder): boolean {
  return embedder.kind === undefined
    ? embedder.id.startsWith('ctxmem-hashing')
    : embedder.kind === 'lexical';
}

/** The text of a card that is indexed and embedded, unless the search is given its own. */
export function defaultCardText(card: MemoryCard): string {
  return card.tags.length === 0 ? card.content : `${card.content}\n${card.tags.join(' ')}`;
}

/** Checks a search's options and applies the defaults; throws `InvalidArgumentError`. */
export function resolveSearchOptions({
  store,
  embedder = createHashingEmbedder(),
  index = createBruteForceIndex({ dimensions: embedder.dimensions }),
  mode = 'hybrid',
  fusion = 'weighted',
  weights = isLexical(embedder) ? { bm25: 0.95, vector: 0.05 } : { bm25: 0.65, vector: 0.35 },
  cosineCalibration = isLexical(embedder) ? 'none' : 'candidate-floor',
  rrfK = 60,
  sequenceContext = {},
  candidates,
  timeoutMs = 1000,
  batchTimeoutMs = 60_000,
  batchSize = 64,
  embedderRetryMs = 30_000,
  relevanceFloor = 0.1,
  bm25: { k1 = 0.9, b = 0.2 } = {},
  analyzer = analyzeText,
  cardText = defaultCardText,
  embeddingCache = new KeyedLru<Float32Array>(10_000),
  dates = {},
  now = Date.now,
  maxScopes = 100,
  onFallback,
  onIndexEvent = (event) =>
    process.emitWarning(`ctxmem memory search: ${event.message}`, { code: 'CTXMEM_SEARCH_INDEX' }),
}: MemorySearchOptions): SearchSettings {
  checkMode('mode', mode);
  const context =
    sequenceContext === false
      ? undefined
      : checkSequenceContext(sequenceContext, isLexical(embedder));
  const dateSettings = dates === false ? undefined : checkDates(dates);
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
  if (candidates !== undefined) checkPositiveInteger('candidates', candidates);
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
  return {
    store,
    embedder,
    index,
    mode,
    fusion,
    weights,
    cosineCalibration,
    rrfK,
    candidates: candidates ?? 50,
    sequenceCandidates: candidates ?? (context ? 100 : 50),
    timeoutMs,
    batchTimeoutMs,
    batchSize,
    embedderRetryMs,
    relevanceFloor,
    bm25: { k1, b },
    analyzer,
    cardText,
    embeddingCache,
    context,
    dates: dateSettings,
    now,
    maxScopes,
    onFallback,
    onIndexEvent,
    lexical: isLexical(embedder),
    defaultCardText: cardText === defaultCardText,
  };
}

/** Checks one query's options; throws `InvalidArgumentError`. */
export function checkQueryOptions(options: MemorySearchQueryOptions): void {
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

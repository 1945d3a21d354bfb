/**
 * Leave-one-conversation-out cross-validation over the LoCoMo development conversations, shared by
 * the compaction and retrieval benches.
 *
 * The procedure a default is chosen by: for each conversation (a fold), every candidate setting is
 * scored on the other conversations pooled, the best one is chosen, and only then measured on the
 * held-out conversation. The figures to report are the mean and the worst fold of those held-out
 * measurements, overall and per LoCoMo category; they estimate what the procedure gives on a
 * conversation it never saw. The setting to ship is the one the same procedure chooses on all
 * conversations (`chosenOnAll`); its score on those conversations is not a figure to report.
 *
 * Every candidate is evaluated once per conversation (a matrix), so five folds cost one pass.
 * The data is read at run time from ../shared/data/locomo (or `CTXMEM_LOCOMO`) and never copied
 * into the repository.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** LoCoMo question categories reported; 5 (adversarial, no answer in the text) is left out. */
export const LOCOMO_CATEGORIES: ReadonlyMap<number, string> = new Map([
  [1, 'multi-hop'],
  [2, 'temporal'],
  [3, 'open-domain'],
  [4, 'single-hop'],
]);

export interface LocomoTurn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}

export interface LocomoQuestion {
  question: string;
  answer?: string | number;
  evidence?: string[];
  category: number;
}

/** One LoCoMo conversation as stored in the data file. */
export interface LocomoSample {
  sample_id: string;
  qa: LocomoQuestion[];
  conversation: Record<string, unknown>;
}

/** Where the LoCoMo development file is, or undefined when this machine has none. */
export function locomoPath(): string | undefined {
  const candidates = [
    process.env.CTXMEM_LOCOMO,
    fileURLToPath(new URL('../../shared/data/locomo/locomo-dev.json', import.meta.url)),
  ];
  return candidates.find((candidate) => candidate !== undefined && existsSync(candidate));
}

/** The development conversations, ordered by `sample_id`, or undefined when the file is missing. */
export function loadLocomo(): LocomoSample[] | undefined {
  const path = locomoPath();
  if (path === undefined) return undefined;
  const samples = JSON.parse(readFileSync(path, 'utf8')) as LocomoSample[];
  return [...samples].sort((left, right) => left.sample_id.localeCompare(right.sample_id));
}

/** The questions a bench scores: categories 1–4, with an answer. */
export function scoredQuestions(sample: LocomoSample): LocomoQuestion[] {
  return sample.qa.filter((qa) => LOCOMO_CATEGORIES.has(qa.category) && qa.answer !== undefined);
}

/**
 * What one question contributed to one evaluation: its category and counts that add up over
 * questions (for example `{ kept: 1, truncation: 0 }` or `{ questions: 1, hit5: 1, hit10: 1 }`).
 */
export interface QuestionOutcome {
  category: number;
  counts: Readonly<Record<string, number>>;
}

/** Counts summed over questions; `metric` turns them into the figure (a ratio, a rate). */
export type Counts = Record<string, number>;

export interface CrossValidationOptions<Sample, Candidate> {
  /** The conversations; each one is held out once. */
  samples: readonly Sample[];
  /** A conversation's name in the table. */
  idOf: (sample: Sample) => string;
  /**
   * The settings to choose among. The first one should be the current default: a tie keeps the
   * earlier candidate, so a change has to win to be chosen.
   */
  candidates: readonly Candidate[];
  nameOf: (candidate: Candidate) => string;
  /** One candidate on one conversation: an outcome per scored question. Called once per pair. */
  evaluate: (
    candidate: Candidate,
    sample: Sample,
  ) => Promise<readonly QuestionOutcome[]> | readonly QuestionOutcome[];
  /** The reported figure from summed counts (higher is better); undefined when it has no value. */
  metric: (counts: Counts) => number | undefined;
  /** What tuning maximises on the pooled tuning conversations. @default metric */
  objective?: (counts: Counts) => number | undefined;
  /** Called after each evaluation, for progress on stderr. */
  onEvaluated?: (candidate: Candidate, sample: Sample, milliseconds: number) => void;
}

/** One fold: the candidate chosen without the held-out conversation, measured on it. */
export interface FoldResult {
  heldOut: string;
  chosen: string;
  /** The chosen candidate's objective on the tuning conversations. */
  tuningScore: number | undefined;
  overall: number | undefined;
  byCategory: ReadonlyMap<number, number | undefined>;
  /** The held-out counts, overall. */
  counts: Counts;
  /** The held-out counts of each category. */
  countsByCategory: ReadonlyMap<number, Counts>;
}

export interface FigureSummary {
  /** Mean over the folds that have a value. */
  mean: number | undefined;
  /** The lowest fold, and which one. */
  worst: number | undefined;
  worstFold: string | undefined;
}

export interface CrossValidationResult {
  folds: FoldResult[];
  overall: FigureSummary;
  byCategory: ReadonlyMap<number, FigureSummary>;
  /** The candidate the procedure chooses on every conversation: the one to ship as default. */
  chosenOnAll: string;
  /** Each candidate's objective on all conversations pooled (for the notes, not a result). */
  poolScores: ReadonlyMap<string, number | undefined>;
  /** Outcomes per candidate name and conversation id, for further tables. */
  outcomes: ReadonlyMap<string, ReadonlyMap<string, readonly QuestionOutcome[]>>;
}

/** Sums counts over outcomes, optionally of one category. */
export function sumCounts(outcomes: readonly QuestionOutcome[], category?: number): Counts {
  const total: Counts = {};
  for (const outcome of outcomes) {
    if (category !== undefined && outcome.category !== category) continue;
    for (const [key, value] of Object.entries(outcome.counts))
      total[key] = (total[key] ?? 0) + value;
  }
  return total;
}

function summarise(folds: ReadonlyArray<{ id: string; value: number | undefined }>): FigureSummary {
  const known = folds.filter(
    (fold): fold is { id: string; value: number } =>
      fold.value !== undefined && Number.isFinite(fold.value),
  );
  if (known.length === 0) return { mean: undefined, worst: undefined, worstFold: undefined };
  const worst = known.reduce((low, fold) => (fold.value < low.value ? fold : low));
  return {
    mean: known.reduce((total, fold) => total + fold.value, 0) / known.length,
    worst: worst.value,
    worstFold: worst.id,
  };
}

/** The candidate with the highest objective on `samples` pooled; the earlier one on a tie. */
function choose<Candidate>(
  candidates: readonly Candidate[],
  nameOf: (candidate: Candidate) => string,
  outcomesOf: (candidate: Candidate) => readonly QuestionOutcome[],
  objective: (counts: Counts) => number | undefined,
): { name: string; score: number | undefined } {
  let best: { name: string; score: number | undefined } | undefined;
  for (const candidate of candidates) {
    const score = objective(sumCounts(outcomesOf(candidate)));
    if (
      best === undefined ||
      (score !== undefined && (best.score === undefined || score > best.score))
    )
      best = { name: nameOf(candidate), score };
  }
  if (best === undefined) throw new Error('cross-validation needs at least one candidate');
  return best;
}

/**
 * Leave-one-conversation-out: evaluates every candidate on every conversation once, then for each
 * conversation chooses on the others and measures on it.
 */
export async function leaveOneConversationOut<Sample, Candidate>(
  options: CrossValidationOptions<Sample, Candidate>,
): Promise<CrossValidationResult> {
  const { samples, idOf, candidates, nameOf, evaluate, metric, objective = metric } = options;
  if (samples.length < 2) throw new Error('leave-one-out needs at least two conversations');
  const names = candidates.map(nameOf);
  if (new Set(names).size !== names.length) throw new Error('candidate names must be unique');

  const outcomes = new Map<string, Map<string, readonly QuestionOutcome[]>>();
  for (const candidate of candidates) {
    const row = new Map<string, readonly QuestionOutcome[]>();
    for (const sample of samples) {
      const started = performance.now();
      row.set(idOf(sample), await evaluate(candidate, sample));
      options.onEvaluated?.(candidate, sample, performance.now() - started);
    }
    outcomes.set(nameOf(candidate), row);
  }
  const pooled = (candidate: Candidate, ids: readonly string[]) =>
    ids.flatMap((id) => outcomes.get(nameOf(candidate))!.get(id)!);

  const ids = samples.map(idOf);
  const chosen = ids.map((heldOut) => {
    const tuning = ids.filter((id) => id !== heldOut);
    const best = choose(candidates, nameOf, (candidate) => pooled(candidate, tuning), objective);
    return { heldOut, chosen: best.name, tuningScore: best.score };
  });
  const onAll = choose(candidates, nameOf, (candidate) => pooled(candidate, ids), objective);
  return {
    ...figures(chosen, outcomes, metric),
    chosenOnAll: onAll.name,
    poolScores: new Map(
      candidates.map((candidate) => [
        nameOf(candidate),
        objective(sumCounts(pooled(candidate, ids))),
      ]),
    ),
    outcomes,
  };
}

type Choice = Pick<FoldResult, 'heldOut' | 'chosen' | 'tuningScore'>;

/** The held-out figures of each fold's choice under `metric`, with their mean and worst fold. */
function figures(
  choices: readonly Choice[],
  outcomes: CrossValidationResult['outcomes'],
  metric: (counts: Counts) => number | undefined,
): Pick<CrossValidationResult, 'folds' | 'overall' | 'byCategory'> {
  const folds: FoldResult[] = choices.map((choice) => {
    const measured = outcomes.get(choice.chosen)!.get(choice.heldOut)!;
    return {
      ...choice,
      overall: metric(sumCounts(measured)),
      byCategory: new Map(
        [...LOCOMO_CATEGORIES.keys()].map((category) => [
          category,
          metric(sumCounts(measured, category)),
        ]),
      ),
      counts: sumCounts(measured),
      countsByCategory: new Map(
        [...LOCOMO_CATEGORIES.keys()].map((category) => [category, sumCounts(measured, category)]),
      ),
    };
  });
  return {
    folds,
    overall: summarise(folds.map((fold) => ({ id: fold.heldOut, value: fold.overall }))),
    byCategory: new Map(
      [...LOCOMO_CATEGORIES.keys()].map((category) => [
        category,
        summarise(
          folds.map((fold) => ({ id: fold.heldOut, value: fold.byCategory.get(category) })),
        ),
      ]),
    ),
  };
}

/**
 * The same folds and choices measured with another figure (hit@10 beside hit@5, 30 % beside
 * 6,000 tokens): each fold keeps the candidate its tuning conversations chose.
 */
export function remeasure(
  result: CrossValidationResult,
  metric: (counts: Counts) => number | undefined,
): CrossValidationResult {
  const choices = result.folds.map(({ heldOut, chosen, tuningScore }) => ({
    heldOut,
    chosen,
    tuningScore,
  }));
  return { ...result, ...figures(choices, result.outcomes, metric) };
}

/**
 * The folds as table rows, then a mean row and a worst-fold row: held-out figure overall and per
 * category, and which candidate each fold chose. `format` prints a figure (e.g. `2.31×`);
 * `counts`, when given, prints the counts behind it, in a column and beside each category's figure.
 */
export function foldRows(
  result: CrossValidationResult,
  options: {
    label: string;
    format: (value: number) => string;
    counts?: (counts: Counts) => string;
  },
): Array<Record<string, string | number>> {
  const { label, format, counts } = options;
  const show = (value: number | undefined) => (value === undefined ? '–' : format(value));
  const categoryColumns = (values: (category: number) => string) =>
    Object.fromEntries([...LOCOMO_CATEGORIES].map(([category, name]) => [name, values(category)]));
  return [
    ...result.folds.map((fold) => ({
      figure: label,
      'held out': fold.heldOut,
      chosen: fold.chosen,
      overall: show(fold.overall),
      ...(counts ? { counts: counts(fold.counts) } : {}),
      ...categoryColumns((category) => {
        const value = show(fold.byCategory.get(category));
        const summed = fold.countsByCategory.get(category);
        return counts && summed ? `${value} (${counts(summed)})` : value;
      }),
    })),
    {
      figure: label,
      'held out': 'mean',
      chosen: '',
      overall: show(result.overall.mean),
      ...(counts ? { counts: '' } : {}),
      ...categoryColumns((category) => show(result.byCategory.get(category)?.mean)),
    },
    {
      figure: label,
      'held out': 'worst fold',
      chosen: '',
      overall: `${show(result.overall.worst)} (${result.overall.worstFold ?? '–'})`,
      ...(counts ? { counts: '' } : {}),
      ...categoryColumns((category) => {
        const summary = result.byCategory.get(category);
        return `${show(summary?.worst)} (${summary?.worstFold ?? '–'})`;
      }),
    },
  ];
}

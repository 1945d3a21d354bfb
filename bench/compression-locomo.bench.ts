/**
 * How many LoCoMo answers survive compaction, against plain truncation (keep the newest messages)
 * to the same budget. No model: ctxmem uses its extractive summarizer. Data is read at run time
 * from ../shared/data/locomo (or CTXMEM_LOCOMO); its text is never copied into the repository.
 *
 * Generalization is measured by leave-one-conversation-out (`cross-validation.ts`): each of the
 * five conversations is held out in turn, the candidate settings are compared on the other four,
 * and the one chosen there is measured on the held-out conversation. The figures reported are the
 * mean and the worst of those five held-out measurements, overall and per LoCoMo category; the
 * default that ships is the one the same procedure chooses on all five. `pnpm bench:quality`.
 *
 * Three budgets: 6,000 tokens with default settings (what the CLI does), 30 % of each conversation,
 * and 6,000 tokens on the opening sessions of each conversation (about 16,000 tokens, the
 * questions whose evidence lies there), since truncation keeps a larger share of a shorter
 * conversation and the ratio is lower there.
 */
import { createTokenCounter, type Message } from '../packages/core/src/index.js';
import {
  type CompactionCandidate,
  extractiveCandidates,
  extractiveLosses,
} from './compression-locomo-candidates.js';
import {
  type Counts,
  foldRows,
  LOCOMO_CATEGORIES,
  type LocomoSample,
  leaveOneConversationOut,
  loadLocomo,
  type QuestionOutcome,
  remeasure,
  scoredQuestions,
} from './cross-validation.js';
import { answerSurvives, locomoMessages, promptText, truncateToBudget } from './locomo-text.js';
import type { BenchRun, BenchSection } from './types.js';

export { locomoPath } from './cross-validation.js';
export { answerSurvives, locomoMessages } from './locomo-text.js';

/**
 * The fixed split of earlier rounds. Kept for the retrieval bench until it moves to
 * `cross-validation.ts`; the compaction figures no longer use it.
 * @deprecated use `leaveOneConversationOut` from `cross-validation.ts`
 */
export const LOCOMO_SPLIT: Readonly<Record<'tuning' | 'validation', readonly string[]>> = {
  tuning: ['conv-26', 'conv-30', 'conv-41'],
  validation: ['conv-42', 'conv-43'],
};

/** @deprecated see `LOCOMO_SPLIT` */
export function locomoPart(sample: { sample_id?: string }): 'tuning' | 'validation' {
  return sample.sample_id !== undefined && LOCOMO_SPLIT.tuning.includes(sample.sample_id)
    ? 'tuning'
    : 'validation';
}

/** Tokens of the opening sessions kept for the short-conversation budget. */
const OPENING_TOKENS = 16_000;
/** The CLI's budget in the issue's measurements. */
const FIXED_BUDGET = 6_000;

/** The opening sessions of a conversation, up to `OPENING_TOKENS`, and the ids of their turns. */
function opening(messages: readonly Message[], counter: ReturnType<typeof createTokenCounter>) {
  const body = messages.slice(1, -1);
  const sessionOf = (message: Message) => String(message.id).split(':')[0];
  let end = 0;
  let tokens = 0;
  while (end < body.length) {
    let next = end;
    while (next < body.length && sessionOf(body[next]!) === sessionOf(body[end]!)) next++;
    const sessionTokens = counter.countMessages(body.slice(end, next));
    if (end > 0 && tokens + sessionTokens > OPENING_TOKENS) break;
    tokens += sessionTokens;
    end = next;
  }
  return {
    messages: [messages[0]!, ...body.slice(0, end), messages.at(-1)!],
    turns: new Set(body.slice(0, end).map((message) => String(message.id))),
  };
}

interface Prepared {
  sample: LocomoSample;
  messages: Message[];
  tokens: number;
  opening: ReturnType<typeof opening>;
  /** Per question: kept by truncation at each budget. */
  truncation: Map<string, { fixed: boolean; proportional: boolean; opening: boolean }>;
}

const counter = createTokenCounter();

function prepare(sample: LocomoSample): Prepared {
  const messages = locomoMessages(sample);
  const tokens = counter.countMessages(messages);
  const start = opening(messages, counter);
  const count = (list: readonly Message[]) => counter.countMessages(list);
  const fixed = promptText(truncateToBudget(messages, FIXED_BUDGET, count));
  const proportional = promptText(truncateToBudget(messages, Math.floor(tokens * 0.3), count));
  const opened = promptText(truncateToBudget(start.messages, FIXED_BUDGET, count));
  const truncation = new Map(
    scoredQuestions(sample).map((qa) => {
      const answer = String(qa.answer);
      return [
        qa.question,
        {
          fixed: answerSurvives(answer, fixed),
          proportional: answerSurvives(answer, proportional),
          opening: answerSurvives(answer, opened),
        },
      ];
    }),
  );
  return { sample, messages, tokens, opening: start, truncation };
}

/** One candidate on one conversation: per question, kept by ctxmem and by truncation per budget. */
async function evaluate(
  candidate: CompactionCandidate,
  prepared: Prepared,
): Promise<QuestionOutcome[]> {
  const { sample, messages, tokens } = prepared;
  const fixed = promptText(await candidate.compact(messages, FIXED_BUDGET));
  const proportional = promptText(await candidate.compact(messages, Math.floor(tokens * 0.3)));
  const opened = promptText(await candidate.compact(prepared.opening.messages, FIXED_BUDGET));
  return scoredQuestions(sample).map((qa) => {
    const answer = String(qa.answer);
    const truncated = prepared.truncation.get(qa.question)!;
    const inOpening =
      (qa.evidence ?? []).length > 0 &&
      qa.evidence!.every((turn) => prepared.opening.turns.has(turn));
    return {
      category: qa.category,
      counts: {
        questions: 1,
        fixed: answerSurvives(answer, fixed) ? 1 : 0,
        fixedTruncation: truncated.fixed ? 1 : 0,
        proportional: answerSurvives(answer, proportional) ? 1 : 0,
        proportionalTruncation: truncated.proportional ? 1 : 0,
        openingQuestions: inOpening ? 1 : 0,
        opening: inOpening && answerSurvives(answer, opened) ? 1 : 0,
        openingTruncation: inOpening && truncated.opening ? 1 : 0,
      },
    };
  });
}

const ratio = (kept: string, truncation: string) => (counts: Counts) =>
  counts[truncation] ? (counts[kept] ?? 0) / counts[truncation]! : undefined;
const FIXED_RATIO = ratio('fixed', 'fixedTruncation');
const PROPORTIONAL_RATIO = ratio('proportional', 'proportionalTruncation');
const OPENING_RATIO = ratio('opening', 'openingTruncation');

/** What tuning maximises: the mean of the three ratios, so no budget is bought with another. */
function objective(counts: Counts): number | undefined {
  const ratios = [FIXED_RATIO(counts), PROPORTIONAL_RATIO(counts), OPENING_RATIO(counts)];
  return ratios.some((value) => value === undefined)
    ? undefined
    : ratios.reduce((sum, value) => sum! + value!, 0)! / ratios.length;
}

const times = (value: number) => `${value.toFixed(2)}×`;

export const run: BenchRun = async ({ quick }) => {
  const samples = loadLocomo();
  if (!samples) {
    return [
      {
        title: 'LoCoMo answers surviving compaction',
        rows: [],
        notes: ['Skipped: LoCoMo data not found (set CTXMEM_LOCOMO).'],
      },
    ];
  }
  const prepared = new Map(samples.map((sample) => [sample.sample_id, prepare(sample)]));
  // Quick: the default alone (the folds still hold out every conversation).
  const candidates = quick ? extractiveCandidates.slice(0, 1) : extractiveCandidates;
  const started = performance.now();
  const result = await leaveOneConversationOut({
    samples,
    idOf: (sample) => sample.sample_id,
    candidates,
    nameOf: (candidate) => candidate.name,
    evaluate: (candidate, sample) => evaluate(candidate, prepared.get(sample.sample_id)!),
    metric: FIXED_RATIO,
    objective,
    onEvaluated: (candidate, sample, milliseconds) =>
      process.stderr.write(
        `  ${candidate.name} on ${sample.sample_id}: ${Math.round(milliseconds)} ms\n`,
      ),
  });
  const seconds = (performance.now() - started) / 1000;
  const counts = (kept: string, truncation: string) => (summed: Counts) =>
    `${summed[kept] ?? 0}/${summed[truncation] ?? 0}`;
  const rows = [
    ...foldRows(result, {
      label: '6,000 tokens',
      format: times,
      counts: counts('fixed', 'fixedTruncation'),
    }),
    ...foldRows(remeasure(result, PROPORTIONAL_RATIO), {
      label: '30 %',
      format: times,
      counts: counts('proportional', 'proportionalTruncation'),
    }),
    ...foldRows(remeasure(result, OPENING_RATIO), {
      label: '6,000 tokens, opening ~16k',
      format: times,
      counts: counts('opening', 'openingTruncation'),
    }),
  ];
  const sections: BenchSection[] = [
    {
      title:
        'LoCoMo, leave one conversation out: answers kept by compaction vs truncation (held-out figures)',
      rows,
      notes: [
        `Each row holds one conversation out: the candidate settings were compared on the other four (by the mean of the three ratios) and the chosen one ("chosen") is measured on the held-out conversation. "mean" and "worst fold" summarise the five held-out figures; per category, a fold without truncation answers in it has no figure. Categories: ${[...LOCOMO_CATEGORIES].map(([key, name]) => `${key} ${name}`).join(', ')} (5, adversarial, left out).`,
        'Counts: answers kept by ctxmem / by truncation on the held-out conversation. An answer survives when its normalised text appears in the compacted prompt (summary included). 6,000 tokens: default settings, as the CLI; 30 %: a budget of 30 % of the conversation; opening ~16k: 6,000 tokens on the opening sessions of each conversation (up to 16,000 tokens), questions whose evidence is there.',
        `Default chosen on all five conversations: ${result.chosenOnAll}. Candidates (pooled objective on all five, not a result): ${[...result.poolScores].map(([name, score]) => `${name} ${score === undefined ? '–' : score.toFixed(3)}`).join('; ')}. ${samples.length} conversations, ${candidates.length} candidates, ${seconds.toFixed(0)} s.`,
        'Targets on the held-out means: 6,000 tokens ≥ 2.2× truncation; on conversations that never reached this repository, through the CLI, ≥ 2.0×.',
      ],
    },
  ];
  if (!quick) sections.push(await extractiveLosses(samples, prepared));
  return sections;
};

export type { Prepared as PreparedConversation };

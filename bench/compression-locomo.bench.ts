/**
 * How many LoCoMo answers survive compaction, against plain truncation (keep the newest messages)
 * to the same budget. No model: ctxmem uses its extractive summarizer. Data is read at run time
 * from ../shared/data/locomo (or CTXMEM_LOCOMO); its text is never copied into the repository.
 *
 * Generalization is measured honestly: the conversations are split, by LoCoMo `sample_id`, into a
 * tuning part (the only one to look at while changing the summarizer) and a validation part (read
 * only to report), and every number is printed for each part separately. A change that raises
 * the tuning score and lowers the validation score is not progress. `pnpm bench:quality` runs it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  compact,
  createExtractiveSummarizer,
  createInMemoryOffloadStore,
  createTokenCounter,
  type Message,
  messageText,
} from '../packages/core/src/index.js';
import type { BenchRun } from './types.js';

interface LocomoTurn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}
interface LocomoQa {
  question: string;
  answer?: string | number;
  category: number;
}
interface LocomoSample {
  sample_id?: string;
  qa: LocomoQa[];
  conversation: Record<string, unknown>;
}

/**
 * The fixed split of the development half (5 of LoCoMo's 10 conversations). Tuning: conv-26
 * conv-30, conv-41, 385 questions of categories 1–4. Validation: conv-42, conv-43, 377
 * questions.
 * Earlier versions of the summarizer were shaped on the whole half, so the validation part is
 * unseen only by changes made since the split; the other half of LoCoMo stays the held-out test.
 */
export const LOCOMO_SPLIT: Readonly<Record<'tuning' | 'validation', readonly string[]>> = {
  tuning: ['conv-26', 'conv-30', 'conv-41'],
  validation: ['conv-42', 'conv-43'],
};

/** The part a sample belongs to; a conversation outside the split is validation data. */
export function locomoPart(sample: LocomoSample): 'tuning' | 'validation' {
  return sample.sample_id !== undefined && LOCOMO_SPLIT.tuning.includes(sample.sample_id)
    ? 'tuning'
    : 'validation';
}

export function locomoPath(): string | undefined {
  const candidates = [
    process.env.CTXMEM_LOCOMO,
    fileURLToPath(new URL('../../shared/data/locomo/locomo-dev.json', import.meta.url)),
  ];
  return candidates.find((candidate) => candidate !== undefined && existsSync(candidate));
}

/** One conversation as chat messages: speaker A is the user, speaker B the assistant. */
export function locomoMessages(sample: LocomoSample): Message[] {
  const conversation = sample.conversation;
  const speakerA = conversation.speaker_a as string;
  const messages: Message[] = [
    {
      role: 'system',
      content: `A long conversation between ${speakerA} and ${conversation.speaker_b as string}.`,
    },
  ];
  const sessions = Object.keys(conversation)
    .filter((key) => /^session_\d+$/.test(key))
    .sort((a, b) => Number(a.slice(8)) - Number(b.slice(8)));
  for (const session of sessions) {
    const date = conversation[`${session}_date_time`] as string | undefined;
    for (const turn of conversation[session] as LocomoTurn[]) {
      const caption = turn.blip_caption ? ` [shares an image: ${turn.blip_caption}]` : '';
      const text = `${date ? `(${date}) ` : ''}${turn.speaker}: ${turn.text}${caption}`;
      messages.push({
        role: turn.speaker === speakerA ? 'user' : 'assistant',
        content: text,
        id: turn.dia_id,
      });
    }
  }
  // The prompt ends with a user question, as in a real call.
  messages.push({ role: 'user', content: 'What do you remember about our conversations so far?' });
  return messages;
}

const normalize = (text: string) =>
  text
    .toLowerCase()
    .normalize('NFKC')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

export function answerSurvives(answer: string, text: string): boolean {
  const wanted = normalize(answer);
  return wanted !== '' && ` ${text} `.includes(` ${wanted} `);
}

function truncateToBudget(
  messages: readonly Message[],
  budget: number,
  count: (messages: readonly Message[]) => number,
) {
  const system = messages[0]!;
  const kept: Message[] = [];
  for (let index = messages.length - 1; index > 0; index--) {
    if (count([system, messages[index]!, ...kept]) > budget) break;
    kept.unshift(messages[index]!);
  }
  return [system, ...kept];
}

/**
 * The conversation as a chat application lives it: messages arrive one by one and the prompt is
 * compacted (to 80% of the budget) whenever it goes over, each time folding the evicted turns
 * into the rolling summary of the previous compaction.
 */
async function rollingCompaction(
  messages: readonly Message[],
  budget: number,
  counter: ReturnType<typeof createTokenCounter>,
) {
  const summarizer = createExtractiveSummarizer({ counter });
  let prompt: Message[] = [messages[0]!];
  let summary: Awaited<ReturnType<typeof compact>>['summary'];
  let compactions = 0;
  let milliseconds = 0;
  for (const message of messages.slice(1)) {
    prompt = [...prompt, message];
    if (counter.countMessages(prompt) <= budget) continue;
    const started = performance.now();
    const result = await compact(prompt, {
      budgetTokens: budget,
      targetTokens: Math.floor(budget * 0.8),
      counter,
      summarizer,
      offloadStore: createInMemoryOffloadStore(),
      settings: { summaryMaxTokens: Math.floor(budget * 0.5) },
      ...(summary ? { previousSummary: summary } : {}),
    });
    milliseconds += performance.now() - started;
    compactions++;
    prompt = result.messages;
    summary = result.summary;
  }
  return { prompt, compactions, milliseconds };
}

type Part = 'tuning' | 'validation';

interface Outcome {
  part: Part;
  kept: number;
  truncation: number;
  questions: number;
  budget: number;
  used: number;
  summaryTokens: number;
  milliseconds: number;
}

function answersIn(questions: readonly LocomoQa[], messages: readonly Message[]): number {
  const text = ` ${normalize(messages.map(messageText).join('\n'))} `;
  return questions.filter((qa) => answerSurvives(String(qa.answer), text)).length;
}

function summaryTokensOf(
  messages: readonly Message[],
  counter: ReturnType<typeof createTokenCounter>,
): number {
  const summary = messages.find((message) => message.ctxmem?.kind === 'summary');
  return summary === undefined ? 0 : counter.countText(messageText(summary));
}

const ratioOf = (kept: number, truncation: number) =>
  truncation === 0 ? '∞' : `${(kept / truncation).toFixed(2)}×`;

/** One row per part: answers kept against truncation, budget used, summary size, time. */
function partRows(scenario: string, outcomes: readonly Outcome[]) {
  return (['tuning', 'validation'] as const).flatMap((part) => {
    const mine = outcomes.filter((outcome) => outcome.part === part);
    if (mine.length === 0) return [];
    const sum = (key: keyof Omit<Outcome, 'part'>) =>
      mine.reduce((total, outcome) => total + outcome[key], 0);
    return [
      {
        scenario,
        part,
        conversations: mine.length,
        'answers (ctxmem)': sum('kept'),
        'answers (truncation)': sum('truncation'),
        questions: sum('questions'),
        'ctxmem / truncation': ratioOf(sum('kept'), sum('truncation')),
        'budget used': `${((100 * sum('used')) / sum('budget')).toFixed(1)}%`,
        'summary tokens (mean)': Math.round(sum('summaryTokens') / mine.length),
        'ms (total)': Math.round(sum('milliseconds')),
      },
    ];
  });
}

export const run: BenchRun = async ({ quick }) => {
  const path = locomoPath();
  if (!path)
    return [
      {
        title: 'LoCoMo answers surviving compaction',
        rows: [],
        notes: ['Skipped: LoCoMo data not found (set CTXMEM_LOCOMO).'],
      },
    ];
  const all = JSON.parse(readFileSync(path, 'utf8')) as LocomoSample[];
  // Quick: one conversation of each part.
  const samples = quick
    ? (['tuning', 'validation'] as const).flatMap((part) =>
        all.filter((sample) => locomoPart(sample) === part).slice(0, 1),
      )
    : all;
  const counter = createTokenCounter();
  const rows: Array<Record<string, string | number>> = [];
  const proportional: Outcome[] = [];
  const fixed: Outcome[] = [];
  const rolling: Outcome[] = [];
  for (const sample of samples) {
    const part = locomoPart(sample);
    const id = sample.sample_id ?? '?';
    const messages = locomoMessages(sample);
    const tokens = counter.countMessages(messages);
    const questions = sample.qa.filter(
      (qa) => qa.category >= 1 && qa.category <= 4 && qa.answer !== undefined,
    );
    const truncationAt = (budget: number) =>
      answersIn(
        questions,
        truncateToBudget(messages, budget, (list) => counter.countMessages(list)),
      );

    // 1. 30% of the conversation; the summary may use half of the budget.
    const budget = Math.floor(tokens * 0.3);
    let started = performance.now();
    const result = await compact(messages, {
      budgetTokens: budget,
      counter,
      summarizer: createExtractiveSummarizer({ counter }),
      offloadStore: createInMemoryOffloadStore(),
      settings: { summaryMaxTokens: Math.floor(budget * 0.5) },
    });
    const truncation = truncationAt(budget);
    proportional.push({
      part,
      kept: answersIn(questions, result.messages),
      truncation,
      questions: questions.length,
      budget,
      used: counter.countMessages(result.messages),
      summaryTokens: summaryTokensOf(result.messages, counter),
      milliseconds: performance.now() - started,
    });

    // 2. What the CLI does by default: a 6,000-token budget, default settings.
    const fixedBudget = 6_000;
    started = performance.now();
    const defaults = await compact(messages, {
      budgetTokens: fixedBudget,
      counter,
      summarizer: createExtractiveSummarizer({ counter }),
      offloadStore: createInMemoryOffloadStore(),
    });
    fixed.push({
      part,
      kept: answersIn(questions, defaults.messages),
      truncation: truncationAt(fixedBudget),
      questions: questions.length,
      budget: fixedBudget,
      used: counter.countMessages(defaults.messages),
      summaryTokens: summaryTokensOf(defaults.messages, counter),
      milliseconds: performance.now() - started,
    });

    // 3. As a chat lives it: compacted each time the prompt goes over, summary handed back.
    const rolled = await rollingCompaction(messages, budget, counter);
    rolling.push({
      part,
      kept: answersIn(questions, rolled.prompt),
      truncation,
      questions: questions.length,
      budget,
      used: counter.countMessages(rolled.prompt),
      summaryTokens: summaryTokensOf(rolled.prompt, counter),
      milliseconds: rolled.milliseconds,
    });

    rows.push({
      conversation: id,
      part,
      messages: messages.length,
      tokens,
      'budget (30%)': budget,
      'answers 30% (ctxmem / truncation)': `${proportional.at(-1)!.kept} / ${truncation}`,
      'answers 6k (ctxmem / truncation)': `${fixed.at(-1)!.kept} / ${fixed.at(-1)!.truncation}`,
      'answers rolling': rolling.at(-1)!.kept,
      questions: questions.length,
      compactions: rolled.compactions,
    });
  }
  return [
    {
      title: 'LoCoMo: answers surviving compaction, per conversation (offline, extractive)',
      rows,
      notes: [
        '30%: budget 30% of the conversation, summary ≤ half of it. 6k: a 6,000-token budget with default settings (as the CLI). Rolling: the 30% budget, compacted to 80% whenever the prompt goes over, previous summary handed back.',
        'An answer survives when its normalised text appears in the compacted prompt (summary included). Categories 1–4.',
      ],
    },
    {
      title: 'LoCoMo: tuning vs validation (report validation; tune on tuning only)',
      rows: [
        ...partRows('30% budget', proportional),
        ...partRows('6k budget, defaults', fixed),
        ...partRows('rolling, 30% budget', rolling),
      ],
      notes: [
        `Split by sample_id: tuning ${LOCOMO_SPLIT.tuning.join(', ')}; validation ${LOCOMO_SPLIT.validation.join(', ')}. Target on validation ≥ 1.7× truncation (goal 2×).`,
        'Budget used: tokens of the compacted prompt over the budget, summed over conversations. Summary tokens: the summary message of the final prompt.',
      ],
    },
  ];
};

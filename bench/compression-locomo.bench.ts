/**
 * How many LoCoMo answers survive compaction to 30% of each conversation's tokens, against plain
 * truncation (keep the newest messages) to the same budget. No model: ctxmem uses its extractive
 * summarizer. Data is read at run time from ../shared/data/locomo (or CTXMEM_LOCOMO); its text is
 * never copied into the repository.
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
  qa: LocomoQa[];
  conversation: Record<string, unknown>;
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
  const samples = JSON.parse(readFileSync(path, 'utf8')) as LocomoSample[];
  const counter = createTokenCounter();
  const rows: Array<Record<string, string | number>> = [];
  let totalCtxmem = 0;
  let totalTruncation = 0;
  let totalQuestions = 0;
  const rollingRows: Array<Record<string, string | number>> = [];
  let totalRolling = 0;
  for (const [index, sample] of (quick ? samples.slice(0, 2) : samples).entries()) {
    const messages = locomoMessages(sample);
    const tokens = counter.countMessages(messages);
    const budget = Math.floor(tokens * 0.3);
    const started = performance.now();
    const result = await compact(messages, {
      budgetTokens: budget,
      counter,
      summarizer: createExtractiveSummarizer({ counter }),
      offloadStore: createInMemoryOffloadStore(),
      // The summary may use half of the budget: the rest keeps the newest turns verbatim.
      settings: { summaryMaxTokens: Math.floor(budget * 0.5) },
    });
    const milliseconds = performance.now() - started;
    const truncated = truncateToBudget(messages, budget, (list) => counter.countMessages(list));
    const compactedText = ` ${normalize(result.messages.map(messageText).join('\n'))} `;
    const truncatedText = ` ${normalize(truncated.map(messageText).join('\n'))} `;
    const questions = sample.qa.filter(
      (qa) => qa.category >= 1 && qa.category <= 4 && qa.answer !== undefined,
    );
    const ctxmem = questions.filter((qa) =>
      answerSurvives(String(qa.answer), compactedText),
    ).length;
    const truncation = questions.filter((qa) =>
      answerSurvives(String(qa.answer), truncatedText),
    ).length;
    const rolling = await rollingCompaction(messages, budget, counter);
    const rollingText = ` ${normalize(rolling.prompt.map(messageText).join('\n'))} `;
    const rollingKept = questions.filter((qa) =>
      answerSurvives(String(qa.answer), rollingText),
    ).length;
    totalRolling += rollingKept;
    rollingRows.push({
      conversation: index + 1,
      compactions: rolling.compactions,
      'answers (ctxmem, rolling)': rollingKept,
      'answers (truncation)': truncation,
      questions: questions.length,
      'ms per compaction': Math.round(rolling.milliseconds / Math.max(1, rolling.compactions)),
    });
    totalCtxmem += ctxmem;
    totalTruncation += truncation;
    totalQuestions += questions.length;
    rows.push({
      conversation: index + 1,
      messages: messages.length,
      tokens,
      budget,
      'ctxmem tokens': counter.countMessages(result.messages),
      'answers (ctxmem)': ctxmem,
      'answers (truncation)': truncation,
      questions: questions.length,
      'compact ms': Math.round(milliseconds),
    });
  }
  const ratio = totalTruncation === 0 ? Number.POSITIVE_INFINITY : totalCtxmem / totalTruncation;
  return [
    {
      title:
        'LoCoMo: answers surviving compaction to 30% of each conversation (offline, extractive)',
      rows,
      notes: [
        `Total: ctxmem keeps ${totalCtxmem} of ${totalQuestions} answers (categories 1–4), truncation ${totalTruncation}: ${ratio.toFixed(2)}× (target ≥ 1.5×).`,
        'An answer survives when its normalised text appears in the compacted prompt (summary included).',
      ],
    },
    {
      title: 'LoCoMo: the same budget, compacted as the chat goes (rolling summary)',
      rows: rollingRows,
      notes: [
        `Total: ctxmem keeps ${totalRolling} of ${totalQuestions} answers when it compacts to 80% of the budget each time the prompt goes over (previous summary handed back), truncation ${totalTruncation}: ${(totalTruncation === 0 ? Number.POSITIVE_INFINITY : totalRolling / totalTruncation).toFixed(2)}×.`,
      ],
    },
  ];
};

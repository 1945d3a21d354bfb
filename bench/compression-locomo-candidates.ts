/**
 * The settings leave-one-conversation-out chooses among for compaction (`compression-locomo.bench.ts`),
 * and where the extractive summarizer loses answers, per LoCoMo category.
 */

import {
  DEFAULT_COMPRESSION_SETTINGS,
  SUMMARY_MAX_TOKENS_CEILING,
  SUMMARY_SHARE_OF_TARGET,
} from '../packages/core/src/compression/settings.js';
import {
  compact,
  createExtractiveSummarizer,
  createInMemoryOffloadStore,
  createTokenCounter,
  type Message,
  renderSummary,
} from '../packages/core/src/index.js';
import type { PreparedConversation } from './compression-locomo.bench.js';
import { LOCOMO_CATEGORIES, type LocomoSample, scoredQuestions } from './cross-validation.js';
import { answerSurvives, promptText } from './locomo-text.js';
import type { BenchSection } from './types.js';

const counter = createTokenCounter();

/** A setting the procedure may choose: how compaction and its summarizer are configured. */
export interface CompactionCandidate {
  name: string;
  /** Compacts `messages` to `budget` the way this candidate would. */
  compact: (messages: readonly Message[], budget: number) => Promise<Message[]>;
}

/** Compacts with default settings, or with the summary taking `share` of the target. */
function withShare(share: number | undefined): CompactionCandidate['compact'] {
  return async (messages: readonly Message[], budget: number) => {
    const summaryMaxTokens =
      share === undefined
        ? undefined
        : // As `resolveSettingsForTarget` sizes it, with another share.
          Math.max(
            DEFAULT_COMPRESSION_SETTINGS.summaryMaxTokens,
            Math.min(SUMMARY_MAX_TOKENS_CEILING, Math.floor(budget * share)),
          );
    const result = await compact(messages, {
      budgetTokens: budget,
      counter,
      summarizer: createExtractiveSummarizer({ counter }),
      offloadStore: createInMemoryOffloadStore(),
      ...(summaryMaxTokens === undefined ? {} : { settings: { summaryMaxTokens } }),
    });
    return result.messages;
  };
}

/**
 * The candidates, the shipped default first (a tie keeps it). The summary's share of the target
 * is bounded at 0.7 by design, not by the data: the newest messages stay verbatim in at least 30 %
 * of the target, which a working session needs whatever a recall benchmark rewards.
 */
export const extractiveCandidates: CompactionCandidate[] = [
  {
    name: `defaults (summary ${SUMMARY_SHARE_OF_TARGET} of target)`,
    compact: withShare(undefined),
  },
  ...[0.5, 0.6, 0.7]
    .filter((share) => share !== SUMMARY_SHARE_OF_TARGET)
    .map((share) => ({ name: `summary ${share} of target`, compact: withShare(share) })),
];

/**
 * Where answers go missing with the default settings at 6,000 tokens, per category: present in the
 * conversation at all, still present among everything the extractive summarizer could keep (its
 * summary with no budget), kept by compaction, kept by truncation.
 */
export async function extractiveLosses(
  samples: readonly LocomoSample[],
  prepared: ReadonlyMap<string, PreparedConversation>,
): Promise<BenchSection> {
  const totals = new Map<number, Record<string, number>>();
  for (const sample of samples) {
    const { messages, truncation } = prepared.get(sample.sample_id)!;
    const whole = promptText(messages);
    const unlimited = await createExtractiveSummarizer({ counter }).summarize({
      messages: messages.slice(1, -1),
      maxTokens: 10_000_000,
    });
    const extractable = promptText([{ role: 'system', content: renderSummary(unlimited.summary) }]);
    const compacted = promptText(await extractiveCandidates[0]!.compact(messages, 6_000));
    for (const qa of scoredQuestions(sample)) {
      const answer = String(qa.answer);
      const row = totals.get(qa.category) ?? {
        questions: 0,
        inText: 0,
        extractable: 0,
        kept: 0,
        truncation: 0,
      };
      row.questions! += 1;
      row.inText! += answerSurvives(answer, whole) ? 1 : 0;
      row.extractable! += answerSurvives(answer, extractable) ? 1 : 0;
      row.kept! += answerSurvives(answer, compacted) ? 1 : 0;
      row.truncation! += truncation.get(qa.question)!.fixed ? 1 : 0;
      totals.set(qa.category, row);
    }
  }
  return {
    title: 'LoCoMo: where answers are lost at 6,000 tokens (defaults, all five conversations)',
    rows: [...LOCOMO_CATEGORIES].map(([category, name]) => {
      const row = totals.get(category)!;
      return {
        category: `${category} ${name}`,
        questions: row.questions!,
        'answer in the conversation': row.inText!,
        'answer among what the summarizer can keep': row.extractable!,
        'kept (ctxmem)': row.kept!,
        'kept (truncation)': row.truncation!,
      };
    }),
    notes: [
      '"In the conversation": the answer\'s text appears anywhere in it (many multi-hop and open-domain answers are inferred, not quoted). "Among what the summarizer can keep": its summary with no budget, where relative dates are resolved ("last week" → "the week before 9 June 2023"), so temporal answers appear there more often than in the text. The gap to "kept" is selection under the budget. A diagnostic over all five conversations, not a held-out figure.',
    ],
  };
}

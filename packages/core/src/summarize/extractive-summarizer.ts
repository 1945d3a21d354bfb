import type {
  StructuredSummary,
  SummarizeRequest,
  SummarizeResult,
  Summarizer,
  TokenCounter,
} from '../contracts/index.js';
import { BudgetExceededError, InvalidArgumentError, SummarizerError } from '../errors/index.js';
import { requireOptions } from '../validation/index.js';
import { extract } from './extract-candidates.js';
import { fitSummary } from './fit-summary.js';
import { selectBullets } from './select-bullets.js';
import { prepareSummaryInput } from './summary-input.js';
import { requireCounter, requirePositiveInteger } from './validate-options.js';

export interface ExtractiveSummarizerOptions {
  /** Measures the rendered summary against the request's `maxTokens`. */
  counter: TokenCounter;
  /** Name in reports and errors. @default 'extractive' */
  name?: string;
  /** Longest bullet kept, in characters; longer sentences are cut with `…`. @default 300 */
  maxSentenceChars?: number;
  /** Longest code snippet kept, in characters (head and tail, the middle marked as omitted). @default 800 */
  maxSnippetChars?: number;
  /** Characters of a tool's arguments kept in its bullet. @default 160 */
  toolArgumentsChars?: number;
  /** Characters of a tool's result kept in its bullet: a head, never the whole payload. @default 120 */
  toolResultChars?: number;
  /** At most this many memory-card drafts per call (the newest are kept). @default 20 */
  maxCards?: number;
}

/**
 * A summarizer that needs no model. It splits the messages into sentences (`Intl.Segmenter`,
 * every script), drops phatic ones (greetings, check-ins, encouragement, compliments) and takes
 * the small talk and filler off the rest ("Wow, Ana,", "btw,"), and keeps those that tell the
 * most per token: each word is worth more the rarer it is in the input (names, numbers, dates,
 * places and identifiers count extra), a word already kept counts little again (novelty), the
 * user's instructions and decisions, constraints, preferences and TODOs (cue words in English,
 * Chinese and Japanese) weigh more, and so do sentences with dates and first-person events.
 * Relative dates ("yesterday", "last week", "两天前") are anchored to the session date of a
 * transcript. Kept sentences are listed in chronological order in the section their meaning
 * gives them; a transcript's timestamps (`(3:31 pm on 23 August, 2023) Ana: …`) are written
 * once per run as their day (`(23 August 2023)`) and its speaker labels replace the role. The goal is the first user request. The previous summary's bullets
 * compete with the new sentences, with a fair share of the budget kept for them. Tool calls keep
 * their name, arguments and the head of their result. Deterministic and offline, which makes it
 * the default and the last fallback of every chain.
 */
export function createExtractiveSummarizer(options: ExtractiveSummarizerOptions): Summarizer {
  const {
    counter,
    name = 'extractive',
    maxSentenceChars = 300,
    maxSnippetChars = 800,
    toolArgumentsChars = 160,
    toolResultChars = 120,
    maxCards = 20,
  } = requireOptions(options, 'createExtractiveSummarizer');
  requireCounter(counter, 'createExtractiveSummarizer');
  for (const [option, value] of Object.entries({
    maxSentenceChars,
    maxSnippetChars,
    toolArgumentsChars,
    toolResultChars,
  })) {
    requirePositiveInteger(option, value);
  }
  if (!Number.isInteger(maxCards) || maxCards < 0) {
    throw new InvalidArgumentError({
      message: `maxCards must be a non-negative integer, got ${maxCards}`,
      argument: 'maxCards',
    });
  }
  const settings = { maxSentenceChars, maxSnippetChars, toolArgumentsChars, toolResultChars };
  // A rolling summary hands its bullets back on every call: count each line once.
  const lineTokens = new Map<string, number>();

  return {
    name,
    async summarize(request: SummarizeRequest): Promise<SummarizeResult> {
      const input = prepareSummaryInput(request, name);
      const extracted = extract(input.messages, input.previousSummary, settings);
      let summary: StructuredSummary;
      try {
        const selected = selectBullets(extracted.candidates, {
          maxTokens: request.maxTokens,
          counter,
          freeText: input.previousSummary?.freeText?.trim() || undefined,
          lineTokens,
        });
        summary = fitSummary(selected, request.maxTokens, counter);
      } catch (error) {
        if (!BudgetExceededError.isInstance(error)) throw error;
        throw new SummarizerError({
          message: `Summarizer ${name} cannot fit a summary in ${request.maxTokens} tokens`,
          summarizer: name,
          kind: 'too-small',
          cause: error,
        });
      }
      const cards = maxCards === 0 ? [] : extracted.cards.slice(-maxCards);
      return { summary, cards, calls: 0 };
    },
  };
}

import type {
  MemoryCardDraft,
  MemoryCardType,
  Message,
  StructuredSummary,
  SummarizeRequest,
  SummarizeResult,
  Summarizer,
  SummarySections,
  TokenCounter,
  ToolResultPart,
} from '../contracts/index.js';
import { BudgetExceededError, InvalidArgumentError, SummarizerError } from '../errors/index.js';
import { toolCallsOf, toolOutputText, toolResultsOf } from '../messages/index.js';
import {
  COMMAND,
  hasGoalCue,
  isFirstPerson,
  isKeyFact,
  isQuestion,
  type SentenceKind,
  SHELL_PROMPT_LINE,
  sentenceKind,
} from './cue-words.js';
import { fitSummary } from './fit-summary.js';
import { mergeSummaries } from './merge-summaries.js';
import { emptySections, SUMMARY_HEADING } from './render-summary.js';
import { prepareSummaryInput } from './summary-input.js';
import { collapseWhitespace, comparisonKey, headAndTail, truncateText } from './summary-text.js';
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

const CARD_TYPE: Readonly<Record<SentenceKind, MemoryCardType>> = {
  preference: 'preference',
  decision: 'decision',
  constraint: 'constraint',
  todo: 'todo',
  fact: 'fact',
};

/** Preferences are instructions about how to work, so they sit with the constraints. */
const SECTION_OF: Readonly<Record<SentenceKind, keyof SummarySections>> = {
  preference: 'constraints',
  decision: 'decisions',
  constraint: 'constraints',
  todo: 'todos',
  fact: 'keyFacts',
};

/**
 * A summarizer that needs no model: it keeps the sentences that matter (decisions, constraints,
 * preferences, TODOs, facts with names, numbers, dates and identifiers, code and shell commands)
 * and sorts them into the summary sections by cue words in English, Chinese and Japanese. The goal
 * is the first user request. The result is merged with the previous summary (each bullet once, the
 * newest kept when over budget) and trimmed to `maxTokens`. Deterministic and offline, which makes
 * it the default and the last fallback of every chain.
 */
export function createExtractiveSummarizer({
  counter,
  name = 'extractive',
  maxSentenceChars = 300,
  maxSnippetChars = 800,
  toolArgumentsChars = 160,
  toolResultChars = 120,
  maxCards = 20,
}: ExtractiveSummarizerOptions): Summarizer {
  requireCounter(counter);
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

  return {
    name,
    async summarize(request: SummarizeRequest): Promise<SummarizeResult> {
      const input = prepareSummaryInput(request, name);
      const extracted = extract(input.messages, input.previousSummary, settings);
      const merged = mergeSummaries(input.previousSummary, extracted.summary);
      let summary: StructuredSummary;
      try {
        summary = fitSummary(merged, request.maxTokens, counter);
      } catch (error) {
        if (!BudgetExceededError.isInstance(error)) throw error;
        throw new SummarizerError({
          message: `Summarizer ${name} cannot fit a summary in ${request.maxTokens} tokens`,
          summarizer: name,
          cause: error,
        });
      }
      const cards = maxCards === 0 ? [] : extracted.cards.slice(-maxCards);
      return { summary, cards, calls: 0 };
    },
  };
}

interface ExtractSettings {
  maxSentenceChars: number;
  maxSnippetChars: number;
  toolArgumentsChars: number;
  toolResultChars: number;
}

function extract(
  messages: readonly Message[],
  previousSummary: StructuredSummary | undefined,
  settings: ExtractSettings,
): { summary: StructuredSummary; cards: MemoryCardDraft[] } {
  const sections = emptySections();
  const cards: MemoryCardDraft[] = [];
  const cardKeys = new Set<string>();
  let needsGoal = (previousSummary?.sections.goal.length ?? 0) === 0;
  const results = collectToolResults(messages);
  const reportedResults = new Set<string>();

  for (const message of messages) {
    if (message.role === 'tool') {
      // A result whose call is in this batch was reported with the call.
      for (const result of toolResultsOf(message)) {
        if (reportedResults.has(result.toolCallId)) continue;
        sections.background.push(
          `Tool result ${result.toolName}: ${resultHead(result, settings.toolResultChars)}`,
        );
      }
      continue;
    }

    for (const call of toolCallsOf(message)) {
      const argumentsText = truncateText(
        collapseWhitespace(JSON.stringify(call.input) ?? ''),
        settings.toolArgumentsChars,
      );
      const result = results.get(call.toolCallId);
      if (result) reportedResults.add(call.toolCallId);
      sections.background.push(
        `Tool ${call.toolName}(${argumentsText})` +
          (result ? ` → ${resultHead(result, settings.toolResultChars)}` : ''),
      );
    }

    const fromUser = message.role === 'user';
    const { prose, snippets } = splitCode(plainText(message), settings.maxSnippetChars);
    sections.snippets.push(...snippets);
    const sentences = splitSentences(prose);

    let goalSentences = 0;
    if (fromUser && needsGoal && sentences.length > 0) {
      // The goal is the opening request: its first sentence, or two when the first is a greeting.
      const first = sentences[0]!;
      const second = sentences[1];
      const goal = first.length < 20 && second ? `${first} ${second}` : first;
      goalSentences = goal === first ? 1 : 2;
      sections.goal.push(truncateText(goal, settings.maxSentenceChars));
      needsGoal = false;
    }

    sentences.forEach((sentence, position) => {
      const text = truncateText(sentence, settings.maxSentenceChars);
      const question = isQuestion(sentence);
      const found = question ? undefined : sentenceKind(sentence);
      // The assistant's "note that…" is commentary, not something the user asked to remember.
      const kind = found === 'fact' && !fromUser ? undefined : found;
      const speaker = fromUser ? 'User: ' : isFirstPerson(sentence) ? 'Assistant: ' : '';
      if (kind) {
        const key = comparisonKey(text);
        if (!cardKeys.has(key)) {
          cardKeys.add(key);
          const card: MemoryCardDraft = {
            content: `${speaker}${text}`,
            type: CARD_TYPE[kind],
            tags: tagsOf(sentence),
          };
          if (message.id !== undefined) card.source = message.id;
          cards.push(card);
        }
      }
      if (position < goalSentences) return;
      if (fromUser && !question && hasGoalCue(sentence)) {
        sections.goal.push(text);
      } else if (kind) {
        sections[SECTION_OF[kind]].push(`${speaker}${text}`);
      } else if (isKeyFact(sentence, fromUser)) {
        sections.keyFacts.push(`${speaker}${text}`);
      } else if (fromUser && position === 0) {
        // Later requests are the thread of the conversation: keep their opening line.
        sections.background.push(`${speaker}${text}`);
      }
    });
  }
  return { summary: { sections }, cards };
}

/** Text and plain parts only: reasoning is the model's scratchpad and binary parts have no text. */
function plainText(message: Message): string {
  if (typeof message.content === 'string') return message.content;
  const pieces: string[] = [];
  for (const part of message.content) {
    if (part.type === 'text') pieces.push(part.text);
  }
  return pieces.join('\n');
}

function collectToolResults(messages: readonly Message[]): Map<string, ToolResultPart> {
  const results = new Map<string, ToolResultPart>();
  for (const message of messages) {
    for (const result of toolResultsOf(message)) results.set(result.toolCallId, result);
  }
  return results;
}

function resultHead(result: ToolResultPart, maxChars: number): string {
  const failed = result.output.type === 'error-text' || result.output.type === 'error-json';
  const head = truncateText(collapseWhitespace(toolOutputText(result.output)), maxChars);
  return failed ? `failed: ${head}` : head;
}

/**
 * Takes fenced code blocks and shell command lines out of the text as snippets and returns the
 * prose that is left.
 */
function splitCode(text: string, maxSnippetChars: number): { prose: string; snippets: string[] } {
  const snippets: string[] = [];
  const withoutBlocks = text.replace(/```[^\n`]*\n([\s\S]*?)(?:```|$)/g, (_, code: string) => {
    const body = code.replace(/\s+$/, '');
    if (body.trim()) snippets.push(clipSnippet(body, maxSnippetChars));
    return '\n';
  });
  const proseLines: string[] = [];
  for (const line of withoutBlocks.split('\n')) {
    const prompted = SHELL_PROMPT_LINE.exec(line)?.[1];
    if (prompted) {
      snippets.push(clipSnippet(prompted.trim(), maxSnippetChars));
      continue;
    }
    proseLines.push(line);
    for (const match of line.matchAll(/`([^`\n]+)`/g)) {
      const code = match[1]!.trim();
      if (COMMAND.test(code)) snippets.push(clipSnippet(code, maxSnippetChars));
    }
  }
  return { prose: proseLines.join('\n'), snippets };
}

function clipSnippet(code: string, maxChars: number): string {
  if (code.length <= maxChars) return code;
  const head = Math.ceil(maxChars * 0.7);
  return headAndTail(code, head, Math.max(0, maxChars - head - 40));
}

/** Splits prose into sentences: by line, then at `.!?` followed by a space, and at `。！？；`. */
function splitSentences(prose: string): string[] {
  const sentences: string[] = [];
  for (const rawLine of prose.split('\n')) {
    const line = rawLine
      .replace(/^\s*(?:#{1,6}\s+|>\s*|[-*+•]\s+|\d+[.)]\s+)/u, '')
      .replace(/^\[[ xX]\]\s+/u, (checkbox) => (checkbox.includes(' ]') ? '[ ] ' : ''))
      .trim();
    if (line === '' || line === SUMMARY_HEADING.replace(/^#+\s*/, '')) continue;
    for (const piece of line.split(/(?<=[.!?])\s+(?=\S)|(?<=[。！？；])/u)) {
      const sentence = collapseWhitespace(piece);
      // Fragments such as "OK." or "1." carry nothing.
      if (
        sentence.replace(/[\p{P}\p{S}\s]/gu, '').length >= 3 ||
        /\p{Script=Han}/u.test(sentence)
      ) {
        sentences.push(sentence);
      }
    }
  }
  return sentences;
}

const STOP_WORDS = new Set(
  'about after also always because been before being could does doing done from have into just like must need never only other should some than that their them then there these they this those through very want what when where which while will with would your user assistant prefer please remember decided'.split(
    ' ',
  ),
);

/** Up to three topic words: identifiers and longer words, in the order they appear. */
function tagsOf(sentence: string): string[] {
  const tags: string[] = [];
  for (const match of sentence.matchAll(/[A-Za-z][\w.+#-]{3,}/g)) {
    const word = match[0].replace(/[.-]+$/, '').toLowerCase();
    if (word.length < 4 || STOP_WORDS.has(word) || tags.includes(word)) continue;
    tags.push(word);
    if (tags.length === 3) break;
  }
  return tags;
}

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
  hasIdentifier,
  informationWeight,
  isFirstPerson,
  isInstruction,
  isQuestion,
  LEADING_INTERJECTION,
  type SentenceKind,
  SHELL_PROMPT_LINE,
  sentenceKind,
} from './cue-words.js';
import { fitSummary } from './fit-summary.js';
import { contentWords } from './information-content.js';
import { readPreamble, speakerLabelOf, speakerLabels } from './message-preamble.js';
import { isPhatic } from './phatic.js';
import { anchorRelativeDates, formatDay, parseSessionDate } from './relative-dates.js';
import { SUMMARY_HEADING, SUMMARY_SECTION_TITLES } from './render-summary.js';
import { type BulletCandidate, selectBullets } from './select-bullets.js';
import { prepareSummaryInput } from './summary-input.js';
import {
  collapseWhitespace,
  comparisonKey,
  headAndTail,
  stripPleasantries,
  truncateText,
} from './summary-text.js';
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
 * A summarizer that needs no model. It splits the messages into sentences (`Intl.Segmenter`,
 * every script), drops phatic ones (greetings, check-ins, encouragement, compliments) and takes
 * the small talk and filler off the rest ("Wow, Caroline,", "btw,"), and keeps those that tell the
 * most per token: each word is worth more the rarer it is in the input (names, numbers, dates,
 * places and identifiers count extra), a word already kept counts little again (novelty), the
 * user's instructions and decisions, constraints, preferences and TODOs (cue words in English,
 * Chinese and Japanese) weigh more, and so do sentences with dates and first-person events.
 * Relative dates ("yesterday", "last week", "两天前") are anchored to the session date of a
 * transcript. Kept sentences are listed in chronological order in the section their meaning
 * gives them; a transcript's timestamps (`(3:31 pm on 23 August, 2023) Caroline: …`) are written
 * once per run as their day (`(23 August 2023)`) and its speaker labels replace the role. The goal is the first user request. The previous summary's bullets
 * compete with the new sentences, with a fair share of the budget kept for them. Tool calls keep
 * their name, arguments and the head of their result. Deterministic and offline, which makes it
 * the default and the last fallback of every chain.
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

/** How much a sentence's words are worth in each role, relative to a plain key fact. */
const WEIGHT = {
  goal: 3,
  decision: 1.5,
  constraint: 1.5,
  preference: 1.2,
  todo: 1.2,
  fact: 2,
  instruction: 3,
  keyFact: 1,
  tool: 1,
  snippet: 1,
  /** A question asks more than it tells. */
  question: 0.5,
  /** The newest candidate is worth this much more than the oldest, all else equal. */
  recency: 0.5,
} as const;

/**
 * Words that open a sentence without adding to it ("btw, ", "And ", "Just wanted to let you know
 * that "): dropped so that a bullet packs the fact, not the way into it. Only before more words.
 */
const LEADING_FILLER =
  /^(?:(?:btw|by the way|actually|honestly|anyway|anyways|plus|also|and|but|oh and|just wanted to (?:let you know|say|tell you|share)(?: that)?)\b[,:]?\s+)+(?=\S+\s+\S+\s+\S)/iu;

/** What a word of a tool's result is worth next to a word of its call. */
const RESULT_SHARE = 0.3;

/** Words that address the listener without naming anyone. */
const GENERIC_ADDRESSEES = new Set([
  'guys',
  'everyone',
  'folks',
  'buddy',
  'bud',
  'pal',
  'mate',
  'bro',
  'dude',
  'man',
  'friend',
  'dear',
]);

interface Extracted {
  candidates: BulletCandidate[];
  cards: MemoryCardDraft[];
}

/**
 * Turns the previous summary's bullets and the new messages' sentences, tool calls and snippets
 * into candidates, oldest first. A sentence that repeats an earlier bullet replaces it (the
 * newest wording and position win), except that the goal keeps its first position.
 */
function extract(
  messages: readonly Message[],
  previousSummary: StructuredSummary | undefined,
  settings: ExtractSettings,
): Extracted {
  const candidates: Array<BulletCandidate | undefined> = [];
  const byKey = new Map<string, number>();
  const goalKeys = new Set<string>();
  let group = 0;
  const add = (candidate: Omit<BulletCandidate, 'order'>, key: string) => {
    if (key === '' || goalKeys.has(key)) return;
    const earlier = byKey.get(key);
    if (earlier !== undefined) candidates[earlier] = undefined;
    if (candidate.section === 'goal') goalKeys.add(key);
    byKey.set(key, candidates.length);
    candidates.push({ ...candidate, order: candidates.length });
  };

  const knownSpeakers = previousSummary
    ? addPreviousBullets(previousSummary, add, () => group++)
    : [];
  const texts = messages.map(plainText);
  const speakers = speakerLabels(texts, knownSpeakers);
  const addressees = new Set<string>();
  for (const speaker of speakers) {
    for (const word of speaker.split(' ')) addressees.add(word.toLowerCase());
  }
  for (const message of messages) if (message.name) addressees.add(message.name.toLowerCase());
  const isAddressee = (word: string) => {
    const lower = word.toLowerCase();
    if (GENERIC_ADDRESSEES.has(lower) || addressees.has(lower)) return true;
    // Short forms of a speaker's name: "Mel" for Melanie.
    return lower.length >= 3 && [...addressees].some((name) => name.startsWith(lower));
  };

  const cards: MemoryCardDraft[] = [];
  const cardKeys = new Set<string>();
  let needsGoal = (previousSummary?.sections.goal.length ?? 0) === 0;
  const results = collectToolResults(messages);
  const reportedResults = new Set<string>();
  /** A tool bullet: the call tells what was done; the head of its result only previews data. */
  const addTool = (call: string, result?: string) => {
    const text = result === undefined ? call : `${call}${result}`;
    const words = new Map(contentWords(call).map((word) => [word.key, word]));
    for (const word of result === undefined ? [] : contentWords(result)) {
      if (!words.has(word.key)) words.set(word.key, { ...word, boost: word.boost * RESULT_SHARE });
    }
    add(
      {
        section: 'background',
        text,
        prefix: '',
        group: group++,
        words: [...words.values()],
        weight: WEIGHT.tool,
      },
      comparisonKey(text),
    );
  };

  // The date of the session a message belongs to: a transcript often dates only its first line.
  let sessionDate: Date | undefined;
  const sessionDates = new Map<string, Date | undefined>();
  messages.forEach((message, messageIndex) => {
    if (message.role === 'tool') {
      // A result whose call is in this batch was reported with the call.
      for (const result of toolResultsOf(message)) {
        if (reportedResults.has(result.toolCallId)) continue;
        addTool(`Tool result ${result.toolName}: `, resultHead(result, settings.toolResultChars));
      }
      return;
    }

    for (const call of toolCallsOf(message)) {
      const argumentsText = truncateText(
        collapseWhitespace(JSON.stringify(call.input) ?? ''),
        settings.toolArgumentsChars,
      );
      const result = results.get(call.toolCallId);
      if (result) reportedResults.add(call.toolCallId);
      addTool(
        `Tool ${call.toolName}(${argumentsText})`,
        result ? ` → ${resultHead(result, settings.toolResultChars)}` : undefined,
      );
    }

    let text = texts[messageIndex]!;
    if (message.ctxmem?.kind === 'tool-run-record') {
      const record = readToolRunRecord(text, settings);
      for (const tool of record.tools) addTool(tool.call, tool.result);
      text = record.prose;
    }

    const fromUser = message.role === 'user';
    const preamble = readPreamble(message, text, speakers);
    if (preamble.timestamp !== undefined) {
      if (!sessionDates.has(preamble.timestamp)) {
        sessionDates.set(preamble.timestamp, parseSessionDate(preamble.timestamp));
      }
      sessionDate = sessionDates.get(preamble.timestamp) ?? sessionDate;
    }
    const timestamp =
      preamble.timestamp === undefined
        ? undefined
        : shortTimestamp(preamble.timestamp, sessionDates.get(preamble.timestamp));
    const { prose, snippets } = splitCode(preamble.body, settings.maxSnippetChars);
    for (const snippet of snippets) {
      add(
        {
          section: 'snippets',
          text: snippet,
          prefix: '',
          group: group++,
          words: contentWords(snippet),
          weight: WEIGHT.snippet,
        },
        bulletKey(snippet),
      );
    }
    const messageGroup = group++;
    const sentences = splitSentences(prose);

    for (const sentence of sentences) {
      const stripped = stripPleasantries(sentence, isAddressee, LEADING_INTERJECTION).replace(
        LEADING_FILLER,
        '',
      );
      if (isPhatic(stripped) || isPhatic(sentence)) continue;
      const cleaned =
        sessionDate === undefined ? stripped : anchorRelativeDates(stripped, sessionDate);
      const words = contentWords(cleaned);
      if (words.length === 0 || isFragment(cleaned)) continue;
      const text = truncateText(cleaned, settings.maxSentenceChars);
      const key = bulletKey(text);
      const base = {
        text,
        group: messageGroup,
        words,
        ...(timestamp === undefined ? {} : { timestamp }),
      };

      const question = isQuestion(cleaned);
      const found = question ? undefined : sentenceKind(cleaned);
      // The assistant's "note that…" is commentary, not something the user asked to remember.
      const kind = found === 'fact' && !fromUser ? undefined : found;
      const speaker = preamble.speaker
        ? `${preamble.speaker}: `
        : fromUser
          ? 'User: '
          : isFirstPerson(cleaned)
            ? 'Assistant: '
            : '';
      if (kind && !cardKeys.has(key)) {
        cardKeys.add(key);
        const card: MemoryCardDraft = {
          content: `${speaker}${text}`,
          type: CARD_TYPE[kind],
          tags: tagsOf(cleaned),
        };
        if (message.id !== undefined) card.source = message.id;
        cards.push(card);
      }
      // The goal is the opening request: the first user sentence that says something. A line of
      // a transcript ("Alice: …") is something said between people, not a request.
      if (fromUser && needsGoal && preamble.speaker === undefined) {
        needsGoal = false;
        add({ ...base, section: 'goal', prefix: '', weight: WEIGHT.goal, pinned: true }, key);
        continue;
      }

      // The user's instructions and firm choices are what a working session must not lose.
      const weight =
        (fromUser && !question && isInstruction(cleaned)
          ? WEIGHT.instruction
          : kind
            ? WEIGHT[kind]
            : WEIGHT.keyFact * (question ? WEIGHT.question : 1)) * informationWeight(cleaned);
      if (fromUser && !question && hasGoalCue(cleaned)) {
        add({ ...base, section: 'goal', prefix: '', weight: WEIGHT.goal }, key);
      } else {
        add(
          {
            ...base,
            // A label in the text marks a transcript between people; a `name` field alone may
            // name an agent or a user of a working session.
            section: sectionOf(
              kind,
              cleaned,
              preamble.speaker !== undefined && preamble.speaker !== message.name,
            ),
            prefix: speaker,
            weight,
          },
          key,
        );
      }
    }
  });

  const kept = candidates.filter((candidate) => candidate !== undefined);
  const last = Math.max(1, kept.length - 1);
  kept.forEach((candidate, position) => {
    candidate.order = position;
    candidate.weight *= 1 + (WEIGHT.recency * position) / last;
  });
  return { candidates: kept, cards };
}

/**
 * A bullet's timestamp as its day ("8 May 2023" for "1:56 pm on 8 May, 2023"): a summary tells
 * what happened on which day, and the clock time would cost tokens on every run of bullets. A
 * timestamp without a date stays as it is.
 */
function shortTimestamp(timestamp: string, day: Date | undefined): string {
  return day === undefined ? timestamp : formatDay(day, /\p{Script=Han}/u.test(timestamp));
}

/** A choice stated as one: "we decided", "I chose", "let's go with". */
const STATED_DECISION =
  /\b(?:i|we)(?:\s+(?:have|finally|just|all))?(?:'ve)?\s+(?:decided|chose|opted|agreed|settled)\b|\blet'?s\s+(?:use|go with|stick with|pick|choose|switch to|adopt)\b|决定|決定/iu;

/**
 * The section a sentence belongs in, by what it says. In a working session, preferences and
 * constraints are rules for the work and TODOs are next steps. Between named people (a
 * transcript), "we enjoy hiking" or "I need to finish my portfolio" tell about the speaker:
 * they are key facts; only an instruction stays a constraint and a stated choice a decision.
 */
function sectionOf(
  kind: SentenceKind | undefined,
  sentence: string,
  betweenPeople: boolean,
): keyof SummarySections {
  if (kind === undefined) return 'keyFacts';
  if (!betweenPeople) return SECTION_OF[kind];
  if (kind === 'constraint' && isInstruction(sentence)) return 'constraints';
  if (kind === 'decision' && STATED_DECISION.test(sentence)) return 'decisions';
  return 'keyFacts';
}

/**
 * The previous summary's bullets as candidates, oldest first, so they compete with the new
 * sentences on what they tell. The first goal is kept whatever happens. A bullet's timestamp is
 * read back (bullets without one share the one above them). Returns the speakers the bullets name.
 */
function addPreviousBullets(
  previous: StructuredSummary,
  add: (candidate: Omit<BulletCandidate, 'order'>, key: string) => void,
  nextGroup: () => number,
): string[] {
  const speakers = new Set<string>();
  for (const section of Object.keys(SUMMARY_SECTION_TITLES) as Array<keyof SummarySections>) {
    let timestamp: string | undefined;
    const weight = SECTION_WEIGHT[section];
    previous.sections[section].forEach((bullet, index) => {
      if (section === 'goal' || section === 'snippets' || section === 'background') {
        add(
          {
            section,
            text: bullet,
            prefix: '',
            group: nextGroup(),
            words: contentWords(bullet),
            weight,
            earlier: true,
            ...(section === 'goal' && index === 0 ? { pinned: true } : {}),
          },
          bulletKey(bullet),
        );
        return;
      }
      const dated = readPreamble({ role: 'assistant', content: '' }, bullet, new Set());
      if (dated.timestamp !== undefined) timestamp = dated.timestamp;
      const speaker = speakerLabelOf(dated.body);
      if (speaker !== undefined) speakers.add(speaker);
      const prefix = speaker === undefined ? '' : `${speaker}: `;
      const core = speaker === undefined ? dated.body : dated.body.replace(SPEAKER_PREFIX, '');
      // Sentences compete one by one, as they did when they were first kept.
      const group = nextGroup();
      for (const sentence of splitSentences(core)) {
        add(
          {
            section,
            text: sentence,
            prefix,
            group,
            words: contentWords(sentence),
            weight,
            earlier: true,
            ...(timestamp === undefined ? {} : { timestamp }),
          },
          bulletKey(sentence),
        );
      }
    });
  }
  return [...speakers].filter((speaker) => speaker !== 'User' && speaker !== 'Assistant');
}

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/gu;

/**
 * "Yay!", "No worries!", "Mel.": fewer than three words and nothing exact (a number, an
 * identifier) to keep. A CJK character counts as half a word.
 */
function isFragment(sentence: string): boolean {
  const characters = sentence.match(CJK)?.length ?? 0;
  const words = sentence.replace(CJK, ' ').match(/[\p{L}\p{N}]+/gu)?.length ?? 0;
  return words + characters / 2 < 3 && !/\d/u.test(sentence) && !hasIdentifier(sentence);
}

/** A leading label ("User: ", "Next step: "): not part of what makes two bullets the same. */
const LABEL = /^[^:：\n]{1,40}[:：]\s+/u;
const SPEAKER_PREFIX = /^[^:：]+[:：]\s+/u;

function bulletKey(text: string): string {
  return comparisonKey(text.replace(LABEL, ''));
}

const SECTION_WEIGHT: Readonly<Record<keyof SummarySections, number>> = {
  goal: WEIGHT.goal,
  background: WEIGHT.tool,
  keyFacts: WEIGHT.keyFact,
  constraints: WEIGHT.constraint,
  decisions: WEIGHT.decision,
  todos: WEIGHT.todo,
  snippets: WEIGHT.snippet,
};

/**
 * A tool-run record (written by the tool-runs strategy) as tool bullets and prose: its bracketed
 * header and footer are boilerplate, each numbered call line becomes a tool bullet (name,
 * arguments and the head of the result, without the reload hint), and quoted assistant text
 * stays prose.
 */
function readToolRunRecord(
  text: string,
  settings: ExtractSettings,
): { tools: Array<{ call: string; result: string }>; prose: string } {
  const tools: Array<{ call: string; result: string }> = [];
  const prose: string[] = [];
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (trimmed === '' || /^\[.*\]$/u.test(trimmed)) continue;
    const call = /^\d+\.\s+([^\s(]+)\((.*?)\)\s+→\s+(.*?)(?:\s+\(\w+\(".*"\)\))?$/u.exec(trimmed);
    if (call) {
      const [, toolName, argumentsText, result] = call;
      const head = truncateText(unquote(result!), settings.toolResultChars);
      tools.push({
        call: `Tool ${toolName}(${truncateText(argumentsText!, settings.toolArgumentsChars)})`,
        result: ` → ${head}`,
      });
      continue;
    }
    const quoted = /^assistant:\s+(.*)$/u.exec(trimmed);
    prose.push(quoted ? unquote(quoted[1]!) : trimmed);
  }
  return { tools, prose: prose.join('\n') };
}

/** The text of a JSON string literal (the record quotes results as data), else the text itself. */
function unquote(text: string): string {
  const errorPrefix = /^error\s+(?=")/u.exec(text)?.[0] ?? '';
  const body = text.slice(errorPrefix.length);
  if (!body.startsWith('"')) return text;
  try {
    const value: unknown = JSON.parse(body);
    return typeof value === 'string'
      ? `${errorPrefix ? 'failed: ' : ''}${collapseWhitespace(value)}`
      : text;
  } catch {
    return text;
  }
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

const SENTENCES = new Intl.Segmenter('en', { granularity: 'sentence' });
/** Abbreviations after which a full stop does not end the sentence ("Dr. Lee", "e.g. this"). */
const ABBREVIATION =
  /(?:^|[\s(])(?:[Mm]rs?|[Mm]s|[Dd]r|[Pp]rof|[Ss]t|[Jj]r|[Ss]r|vs|e\.g|i\.e|approx|[A-Z])\.\s*$/u;

/**
 * The sentences of one line, by Unicode sentence boundaries (every script: `.!?`, `。！？`, …),
 * also split at `；`, with a boundary after a common abbreviation undone.
 */
function segmentSentences(line: string): string[] {
  const pieces: string[] = [];
  let pending = '';
  for (const { segment } of SENTENCES.segment(line)) {
    pending += segment;
    // The segment alone is tested: testing the growing `pending` would be quadratic.
    if (ABBREVIATION.test(segment)) continue;
    pieces.push(...pending.split(/(?<=；)/u));
    pending = '';
  }
  if (pending !== '') pieces.push(pending);
  return pieces;
}

/** Splits prose into sentences: by line, then at Unicode sentence boundaries. */
function splitSentences(prose: string): string[] {
  const sentences: string[] = [];
  for (const rawLine of prose.split('\n')) {
    const line = rawLine
      .replace(/^\s*(?:#{1,6}\s+|>\s*|[-*+•]\s+|\d+[.)]\s+)/u, '')
      .replace(/^\[[ xX]\]\s+/u, (checkbox) => (checkbox.includes(' ]') ? '[ ] ' : ''))
      .trim();
    if (line === '' || line === SUMMARY_HEADING.replace(/^#+\s*/, '')) continue;
    for (const piece of segmentSentences(line)) {
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

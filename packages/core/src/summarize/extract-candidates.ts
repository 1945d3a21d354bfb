/**
 * The candidates of an extractive summary: the previous summary's bullets and the new messages'
 * sentences, tool calls and snippets, each with its section, weight and words.
 */
import type { MemoryCardDraft, Message, StructuredSummary } from '../contracts/index.js';
import { toolCallsOf, toolResultsOf } from '../messages/index.js';
import {
  hasGoalCue,
  hasIdentifier,
  informationWeight,
  isFirstPerson,
  isInstruction,
  isQuestion,
  LEADING_INTERJECTION,
  sentenceKind,
} from './cue-words.js';
import { type ContentWord, createContentWordReader } from './information-content.js';
import { readPreamble, speakerLabels } from './message-preamble.js';
import { collectToolResults, plainText, readToolRunRecord, resultHead } from './message-text.js';
import { isPhatic } from './phatic.js';
import { addPreviousBullets, bulletKey } from './previous-bullets.js';
import { anchorRelativeDates, formatDay, parseSessionDate } from './relative-dates.js';
import type { BulletCandidate } from './select-bullets.js';
import { CARD_TYPE, sectionOf, WEIGHT } from './sentence-sections.js';
import { splitCode, splitSentences } from './split-sentences.js';
import {
  collapseWhitespace,
  comparisonKey,
  stripPleasantries,
  truncateText,
} from './summary-text.js';
import { tagsOf } from './topic-tags.js';

export interface ExtractSettings {
  maxSentenceChars: number;
  maxSnippetChars: number;
  toolArgumentsChars: number;
  toolResultChars: number;
}

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
export function extract(
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

  const contentWords = createContentWordReader();
  const knownSpeakers = previousSummary
    ? addPreviousBullets(previousSummary, add, () => group++, contentWords)
    : [];
  const texts = messages.map(plainText);
  const speakers = speakerLabels(texts, knownSpeakers);
  const addressees = new Set<string>();
  for (const speaker of speakers) {
    for (const word of speaker.split(' ')) addressees.add(word.toLowerCase());
  }
  for (const message of messages) if (message.name) addressees.add(message.name.toLowerCase());
  const addresseeNames = [...addressees];
  const isAddressee = (word: string) => {
    const lower = word.toLowerCase();
    if (GENERIC_ADDRESSEES.has(lower) || addressees.has(lower)) return true;
    // Short forms of a speaker's name: "Sam" for Samantha.
    return lower.length >= 3 && addresseeNames.some((name) => name.startsWith(lower));
  };

  const cards: MemoryCardDraft[] = [];
  const cardKeys = new Set<string>();
  let needsGoal = (previousSummary?.sections.goal.length ?? 0) === 0;
  const results = collectToolResults(messages);
  const reportedResults = new Set<string>();
  // The same call ("Tool read_file({"path":"src/a.ts"})") comes back many times in a long run:
  // its words are read once.
  const callWords = new Map<string, CallWords>();
  /** A tool bullet: the call tells what was done; the head of its result only previews data. */
  const addTool = (call: string, result?: string) => {
    const text = result === undefined ? call : `${call}${result}`;
    let ofCall = callWords.get(call);
    if (ofCall === undefined) {
      const words = contentWords(call);
      ofCall = { words, keys: new Set(words.map((word) => word.key)) };
      callWords.set(call, ofCall);
    }
    const words =
      result === undefined ? ofCall.words : withResultWords(ofCall, contentWords(result));
    add(
      {
        section: 'background',
        text,
        prefix: '',
        group: group++,
        words,
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
      // Most sentences have nothing to strip: the same text need not be tested twice.
      if (isPhatic(stripped) || (stripped !== sentence && isPhatic(sentence))) continue;
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

/** A tool call's content words, and their keys to look a result's words up in. */
interface CallWords {
  words: readonly ContentWord[];
  keys: ReadonlySet<string>;
}

/**
 * A tool call's words followed by its result's words that the call does not have, each worth
 * `RESULT_SHARE` of a word of the call. A new array: the call's words are shared by every
 * bullet of the same call.
 */
function withResultWords(call: CallWords, resultWords: readonly ContentWord[]): ContentWord[] {
  const words = call.words.slice();
  for (const word of resultWords) {
    if (!call.keys.has(word.key)) words.push({ key: word.key, boost: word.boost * RESULT_SHARE });
  }
  return words;
}

/**
 * A bullet's timestamp as its day ("8 May 2023" for "1:56 pm on 8 May, 2023"): a summary tells
 * what happened on which day, and the clock time would cost tokens on every run of bullets. A
 * timestamp without a date stays as it is.
 */
function shortTimestamp(timestamp: string, day: Date | undefined): string {
  return day === undefined ? timestamp : formatDay(day, /\p{Script=Han}/u.test(timestamp));
}

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/gu;

/**
 * "Yay!", "No worries!", "Sam.": fewer than three words and nothing exact (a number, an
 * identifier) to keep. A CJK character counts as half a word.
 */
export function isFragment(sentence: string): boolean {
  const characters = sentence.match(CJK)?.length ?? 0;
  const words = sentence.replace(CJK, ' ').match(/[\p{L}\p{N}]+/gu)?.length ?? 0;
  return words + characters / 2 < 3 && !/\d/u.test(sentence) && !hasIdentifier(sentence);
}

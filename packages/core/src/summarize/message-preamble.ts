import type { Message } from '../contracts/index.js';
import { isTimestamp, sentenceKind } from './cue-words.js';

/** What a chat transcript often writes before a message's text: when, and who speaks. */
export interface MessagePreamble {
  /** A leading `(3:31 pm on 23 August, 2023)` or `[2024-05-01 10:02]`, without its brackets. */
  timestamp?: string;
  /** A leading `Ana:` label (or the message's `name`), without its colon. */
  speaker?: string;
  /** The text after the preamble. */
  body: string;
}

const LEADING_BRACKETS = /^\s*[([]([^()[\]\n]{3,60})[)\]]\s*/u;
/** One to three capitalised words (or a CJK name) and a colon. */
const SPEAKER_LABEL =
  /^([\p{Lu}\p{Lo}][\p{L}\p{M}'’.-]{0,24}(?: [\p{Lu}][\p{L}\p{M}'’.-]{0,24}){0,2}) ?[:：]\s+/u;
/** Labels that introduce content rather than name a speaker. */
const NOT_SPEAKERS = new Set(
  'note notes error errors warning warnings todo update edit summary question answer step example output input result results fix goal context problem solution tip hint also ps re fyi important issue bug reason cause plan status'.split(
    ' ',
  ),
);

/** The speaker label a text opens with (`Ana: …`), if it reads as one. */
export function speakerLabelOf(text: string): string | undefined {
  const label = SPEAKER_LABEL.exec(text)?.[1];
  if (label === undefined || NOT_SPEAKERS.has(label.toLowerCase())) return undefined;
  return sentenceKind(`${label}:`) === undefined ? label : undefined;
}

function splitTimestamp(text: string): { timestamp?: string; rest: string } {
  const match = LEADING_BRACKETS.exec(text);
  if (!match || !isTimestamp(match[1]!)) return { rest: text };
  return { timestamp: match[1]!.trim(), rest: text.slice(match[0].length) };
}

/**
 * The speaker labels of a transcript: a label counts when at least two messages open with it (so
 * that a one-off "Next step: …" is not taken for a name), when a previous summary already knows
 * it, or when it is the message's `name`.
 */
export function speakerLabels(
  texts: readonly string[],
  known: Iterable<string> = [],
): ReadonlySet<string> {
  const counts = new Map<string, number>();
  for (const text of texts) {
    const label = speakerLabelOf(splitTimestamp(text).rest);
    if (label !== undefined) counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  const labels = new Set(known);
  for (const [label, count] of counts) if (count >= 2) labels.add(label);
  return labels;
}

/** Splits a message's text into its preamble (timestamp, speaker label) and its body. */
export function readPreamble(
  message: Message,
  text: string,
  labels: ReadonlySet<string>,
): MessagePreamble {
  const { timestamp, rest } = splitTimestamp(text);
  const label = speakerLabelOf(rest);
  const preamble: MessagePreamble = { body: rest };
  if (timestamp !== undefined) preamble.timestamp = timestamp;
  if (label !== undefined && (labels.has(label) || label === message.name)) {
    preamble.speaker = label;
    preamble.body = rest.slice(SPEAKER_LABEL.exec(rest)![0].length);
  } else if (message.name) {
    preamble.speaker = message.name;
  }
  return preamble;
}

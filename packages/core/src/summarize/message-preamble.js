import { isTimestamp, sentenceKind } from './cue-words.js';

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
/** The speaker label a text opens with (`Caroline: …`), if it reads as one. */
export function speakerLabelOf(text) {
  const label = SPEAKER_LABEL.exec(text)?.[1];
  if (label === undefined || NOT_SPEAKERS.has(label.toLowerCase())) return undefined;
  return sentenceKind(`${label}:`) === undefined ? label : undefined;
}
function splitTimestamp(text) {
  const match = LEADING_BRACKETS.exec(text);
  if (!match || !isTimestamp(match[1])) return { rest: text };
  return { timestamp: match[1].trim(), rest: text.slice(match[0].length) };
}
/**
 * The speaker labels of a transcript: a label counts when at least two messages open with it (so
 * that a one-off "Next step: …" is not taken for a name), when a previous summary already knows
 * it, or when it is the message's `name`.
 */
export function speakerLabels(texts, known = []) {
  const counts = new Map();
  for (const text of texts) {
    const label = speakerLabelOf(splitTimestamp(text).rest);
    if (label !== undefined) counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  const labels = new Set(known);
  for (const [label, count] of counts) if (count >= 2) labels.add(label);
  return labels;
}
/** Splits a message's text into its preamble (timestamp, speaker label) and its body. */
export function readPreamble(message, text, labels) {
  const { timestamp, rest } = splitTimestamp(text);
  const label = speakerLabelOf(rest);
  const preamble = { body: rest };
  if (timestamp !== undefined) preamble.timestamp = timestamp;
  if (label !== undefined && (labels.has(label) || label === message.name)) {
    preamble.speaker = label;
    preamble.body = rest.slice(SPEAKER_LABEL.exec(rest)[0].length);
  } else if (message.name) {
    preamble.speaker = message.name;
  }
  return preamble;
}
//# sourceMappingURL=message-preamble.js.map

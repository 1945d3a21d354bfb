/** Prose split into sentences and code blocks, as the extractive summarizer keeps them. */
import { lazy } from '../cache/index.js';
import { COMMAND, SHELL_PROMPT_LINE } from './cue-words.js';
import { SUMMARY_HEADING } from './render-summary.js';
import { collapseWhitespace, headAndTail } from './summary-text.js';

/**
 * Takes fenced code blocks and shell command lines out of the text as snippets and returns the
 * prose that is left.
 */
export function splitCode(
  text: string,
  maxSnippetChars: number,
): { prose: string; snippets: string[] } {
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
    if (!line.includes('`')) continue;
    for (const match of line.matchAll(/`([^`\n]+)`/g)) {
      const code = match[1]!.trim();
      if (COMMAND.test(code)) snippets.push(clipSnippet(code, maxSnippetChars));
    }
  }
  return { prose: proseLines.join('\n'), snippets };
}

export function clipSnippet(code: string, maxChars: number): string {
  if (code.length <= maxChars) return code;
  const head = Math.ceil(maxChars * 0.7);
  return headAndTail(code, head, Math.max(0, maxChars - head - 40));
}

/** Made on first use: creating a segmenter loads ICU's sentence rules, milliseconds at import. */
const sentenceSegmenter = lazy(() => new Intl.Segmenter('en', { granularity: 'sentence' }));
/**
 * What a sentence boundary needs before it (UAX #29, rules SB4 and SB11): a sentence terminator
 * (`STerm`, `ATerm`: `.` `!` `?` `。` and their kin in every script) or a paragraph separator.
 */
const SENTENCE_BREAK = /[\p{Sentence_Terminal}\u002E\u2024\uFE52\uFF0E\r\n\u0085\u2028\u2029]/u;
/** Abbreviations after which a full stop does not end the sentence ("Dr. Lee", "e.g. this"). */
const ABBREVIATION =
  /(?:^|[\s(])(?:[Mm]rs?|[Mm]s|[Dd]r|[Pp]rof|[Ss]t|[Jj]r|[Ss]r|vs|e\.g|i\.e|approx|[A-Z])\.\s*$/u;

/**
 * The sentences of one line, by Unicode sentence boundaries (every script: `.!?`, `。！？`, …),
 * also split at `；`, with a boundary after a common abbreviation undone.
 */
export function segmentSentences(line: string): string[] {
  // Without a terminator, Unicode's sentence rules (UAX #29) find no boundary inside the line, and
  // asking the segmenter costs more than the rest of reading it.
  if (line !== '' && !SENTENCE_BREAK.test(line)) return splitAtSemicolons(line);
  return segmentWithSegmenter(line);
}

/** `segmentSentences` by asking `Intl.Segmenter`, whatever the line. */
export function segmentWithSegmenter(line: string): string[] {
  const pieces: string[] = [];
  let pending = '';
  for (const { segment } of sentenceSegmenter().segment(line)) {
    pending += segment;
    // The segment alone is tested: testing the growing `pending` would be quadratic.
    if (ABBREVIATION.test(segment)) continue;
    pieces.push(...splitAtSemicolons(pending));
    pending = '';
  }
  if (pending !== '') pieces.push(pending);
  return pieces;
}

function splitAtSemicolons(text: string): string[] {
  return text.includes('；') ? text.split(/(?<=；)/u) : [text];
}

/** Three characters (code points) that are not punctuation, symbols or spaces. */
const THREE_SPOKEN_CHARACTERS =
  /[^\p{P}\p{S}\s][\p{P}\p{S}\s]*[^\p{P}\p{S}\s][\p{P}\p{S}\s]*[^\p{P}\p{S}\s]/u;

/**
 * Whether a piece says something: at least three UTF-16 units that are not punctuation, symbols or
 * spaces ("OK." and "1." do not). Three such code points are found without rebuilding the
 * sentence; the count decides only when they are not there.
 */
export function hasSpokenContent(sentence: string): boolean {
  return (
    THREE_SPOKEN_CHARACTERS.test(sentence) || sentence.replace(/[\p{P}\p{S}\s]/gu, '').length >= 3
  );
}

/** Splits prose into sentences: by line, then at Unicode sentence boundaries. */
export function splitSentences(prose: string): string[] {
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
      if (hasSpokenContent(sentence) || /\p{Script=Han}/u.test(sentence)) {
        sentences.push(sentence);
      }
    }
  }
  return sentences;
}

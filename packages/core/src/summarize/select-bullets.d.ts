import type { StructuredSummary, SummarySections, TokenCounter } from '../contracts/index.js';
import { type ContentWord } from './information-content.js';

type SectionKey = keyof SummarySections;
/** A sentence (or an earlier bullet) that may go into the summary. */
export interface BulletCandidate {
  section: SectionKey;
  /** The sentence, without speaker or timestamp. */
  text: string;
  /** Written before the text: `'Caroline: '`, `'User: '` or `''`. */
  prefix: string;
  /** When it was said; written once before the first bullet of each run with the same one. */
  timestamp?: string;
  /** Kept candidates of one group that follow each other share a bullet (one prefix). */
  group: number;
  /** Chronological position: bullets are listed in this order. */
  order: number;
  words: readonly ContentWord[];
  /** Multiplies what the words are worth: cue words, questions, recency. */
  weight: number;
  /** Kept whatever it costs (the original goal). */
  pinned?: boolean;
  /** From the previous summary: guaranteed a fair share of the room (see `selectBullets`). */
  earlier?: boolean;
}
export interface SelectOptions {
  /** Budget of the rendered summary. */
  maxTokens: number;
  counter: TokenCounter;
  /** Kept as it is (after the sections) and counted. @default undefined */
  freeText?: string | undefined;
  /** Token counts of lines already seen, shared between calls. @default a new map */
  lineTokens?: Map<string, number>;
}
/**
 * Picks the candidates that tell the most per token until the rendered summary reaches
 * `maxTokens` (a greedy budgeted maximum coverage: each word counts fully once, and a little
 * after that), then lists them in chronological order within their sections. A timestamp is
 * written once per run of bullets with the same one. `freeText` is kept as it is and counted.
 */
export declare function selectBullets(
  candidates: readonly BulletCandidate[],
  { maxTokens, counter, freeText, lineTokens }: SelectOptions,
): StructuredSummary;
//# sourceMappingURL=select-bullets.d.ts.map

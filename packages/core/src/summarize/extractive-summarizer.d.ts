import type { Summarizer, TokenCounter } from '../contracts/index.js';
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
 * A summarizer that needs no model. It splits the messages into sentences, takes the small talk
 * off them (greetings, thank-yous, "Wow, Caroline,"), and keeps those that tell the most per
 * token: each word is worth more the rarer it is in the input (names, numbers, dates, places and
 * identifiers count extra), a word already kept counts little again, and the user's instructions
 * and decisions, constraints, preferences and TODOs (cue words in English, Chinese and Japanese)
 * weigh more. Kept sentences are listed in chronological order in their sections; a transcript's
 * timestamps (`(3:31 pm on 23 August, 2023) Caroline: …`) are written once per run and its speaker
 * labels replace the role. The goal is the first user request. The previous summary's bullets
 * compete with the new sentences, with a fair share of the budget kept for them. Tool calls keep
 * their name, arguments and the head of their result. Deterministic and offline, which makes it
 * the default and the last fallback of every chain.
 */
export declare function createExtractiveSummarizer({
  counter,
  name,
  maxSentenceChars,
  maxSnippetChars,
  toolArgumentsChars,
  toolResultChars,
  maxCards,
}: ExtractiveSummarizerOptions): Summarizer;
//# sourceMappingURL=extractive-summarizer.d.ts.map

import type { CompleteFn, Summarizer, TokenCounter } from '../contracts/index.js';
export interface ModelSummarizerOptions {
  /** The model call (supplied by an adapter). It should honour `abortSignal`; a call that does not is abandoned on timeout anyway. */
  complete: CompleteFn;
  /** Counts prompt and summary tokens. */
  counter: TokenCounter;
  /** Context window of the summarizing model in tokens: every prompt plus `maxOutputTokens` fits in it. @default 32000 */
  contextWindow?: number;
  /**
   * Output tokens requested per call (and reserved in the window).
   * @default twice the request's `maxTokens` plus 512 for the memories, between 1024 and a quarter of the window
   */
  maxOutputTokens?: number;
  /** Each model call is aborted after this many milliseconds. @default 60000 */
  timeoutMs?: number;
  /** Name in reports and errors. @default 'model' */
  name?: string;
  /** Extra instructions appended to the system prompt (for example the language to write in). @default none */
  instructions?: string;
  /** Characters of each tool result shown to the model. @default 1000 */
  toolResultChars?: number;
  /** Characters of each tool call's arguments shown to the model. @default 1000 */
  toolArgumentsChars?: number;
  /** Characters of head and tail excerpt sent for a message too large to send whole. @default 2000 */
  oversizedExcerptChars?: number;
}
/**
 * A summarizer over a model call. Each call sends the previous summary and the new messages with a
 * short few-shot prompt and asks for one JSON object with the summary sections and memory cards;
 * the answer is parsed tolerantly, and an answer that is not JSON is kept as `freeText`. An empty
 * answer, an empty summary, or a call that throws, times out or is aborted throws `SummarizerError`
 * — an error text is never returned as a summary.
 *
 * When the messages do not fit the model's window they are summarized in chunks (seed 003):
 * chunks take 40% of the window, less as messages grow (down to 15%), with a 1.2 safety margin;
 * each chunk's summary is the previous summary of the next. A message larger than half the window
 * is sent as a head-and-tail excerpt with a note, never whole.
 */
export declare function createModelSummarizer({
  complete,
  counter,
  contextWindow,
  maxOutputTokens,
  timeoutMs,
  name,
  instructions,
  toolResultChars,
  toolArgumentsChars,
  oversizedExcerptChars,
}: ModelSummarizerOptions): Summarizer;
//# sourceMappingURL=model-summarizer.d.ts.map

import type { MemoryCardDraft } from './memory-card.js';
import type { Message } from './message.js';

/**
 * The minimal model call that adapters supply (AI SDK, LangChain, an OpenAI-compatible endpoint).
 * It must honour `abortSignal`. It answers the text, or the text with the reason the model
 * stopped, so that an answer cut off at the output limit is not taken for a whole one.
 */
export type CompleteFn = (request: CompleteRequest) => Promise<string | CompleteResult>;

/** A model's answer with why it stopped. */
export interface CompleteResult {
  text: string;
  /**
   * Why the model stopped, in the AI SDK's terms: `'stop'`, `'length'` (the output limit cut it
   * off), `'content-filter'`, `'tool-calls'`, `'error'` or `'other'`. Unknown when unset.
   */
  finishReason?: string;
  /** The provider's token counts for the call, when the adapter reads them (telemetry reports them). */
  usage?: { inputTokens?: number; outputTokens?: number };
  /** The id of the model the request was made to, when the adapter knows it (telemetry reports it). */
  model?: string;
}

export interface CompleteRequest {
  system?: string;
  prompt: string;
  maxOutputTokens?: number;
  /** Ask for a JSON object when the model supports it. */
  responseFormat?: 'text' | 'json';
  abortSignal?: AbortSignal;
}

/** The sections of the rolling `## Context Summary`. Each section is a list of short bullets. */
export interface SummarySections {
  goal: string[];
  background: string[];
  keyFacts: string[];
  constraints: string[];
  decisions: string[];
  todos: string[];
  snippets: string[];
}

export interface StructuredSummary {
  sections: SummarySections;
  /**
   * Free text used when the model's JSON was invalid and its raw text was kept instead
   * (rendered after the sections).
   */
  freeText?: string;
}

export interface SummarizeRequest {
  /** The messages to fold into the summary, oldest first. */
  messages: readonly Message[];
  /** The current rolling summary; the result replaces it (summaries never stack). */
  previousSummary?: StructuredSummary;
  /** Token budget of the rendered summary. */
  maxTokens: number;
  abortSignal?: AbortSignal;
}

export interface SummarizeResult {
  summary: StructuredSummary;
  /** Durable memories extracted along the way (for the long-term memory store). */
  cards: MemoryCardDraft[];
  /** Model calls made (0 for the extractive summarizer). */
  calls: number;
  /** Set when the primary summarizer failed and a fallback produced this result. */
  fallback?: SummarizerFallback;
}

/**
 * Why a summarizer failed, in a word that never quotes its input, so it can be stored (a failure's
 * message can quote the conversation): `timeout`, `aborted` (the caller's signal), `rate-limited`,
 * `refusal`, `cut-off` (stopped at the output limit), `content-filter`, `unparseable` (no summary
 * in the answer), `empty`, `circuit-open` (not called after repeated failures), `too-small` (the
 * window or budget cannot hold a summary prompt or the summary) or `error` (anything else).
 */
export type SummarizerFailureKind =
  | 'timeout'
  | 'aborted'
  | 'rate-limited'
  | 'refusal'
  | 'cut-off'
  | 'content-filter'
  | 'unparseable'
  | 'empty'
  | 'circuit-open'
  | 'too-small'
  /** The model rejected the prompt as too long for its window, twice (once at a smaller size). */
  | 'context-overflow'
  | 'error';

/** A summarizer's failure that a fallback covered. */
export interface SummarizerFallback {
  /** The summarizer that failed. */
  from: string;
  /** Its failure in words; may quote the conversation, so it goes to events, never to storage. */
  reason: string;
  /** The failure's kind, from the typed error (never from its message). */
  kind?: SummarizerFailureKind;
  /**
   * The class of the error behind the failure (`TimeoutError`, a provider's `APIError`): the
   * cause's class when a `SummarizerError` wraps one, else the thrown error's.
   */
  errorClass?: string;
}

/**
 * Turns messages (and the previous summary) into a new structured summary. Must never return an
 * error text as a summary: on failure it throws `SummarizerError`, and the caller falls back.
 */
export interface Summarizer {
  readonly name: string;
  /**
   * The longest summary it writes, in tokens, however much room a request's `maxTokens` gives: a
   * model summarizer bounds what it asks a model to write (output tokens cost time and money).
   * Compaction plans what to evict with it, so that a summary smaller than the room does not
   * leave the room unused.
   * @default undefined (it may fill `maxTokens`)
   */
  readonly maxSummaryTokens?: number;
  summarize(request: SummarizeRequest): Promise<SummarizeResult>;
}

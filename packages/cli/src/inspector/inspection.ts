/**
 * What the inspector shows, as plain data: built by `inspectConversation` (a replay through the
 * context manager) and rendered by `renderInspectorHtml`. Kept separate from both so the page can
 * be tested on hand-made inspections and the replay without a browser.
 */

/** The parts of a window the stacked bar shows, in the order they are drawn. */
export type WindowPart =
  | 'system'
  | 'summary'
  | 'memories'
  | 'history'
  | 'compressed'
  | 'toolResults'
  | 'toolDefinitions'
  | 'outputReserve';

export const WINDOW_PART_LABELS: Readonly<Record<WindowPart, string>> = {
  system: 'system',
  summary: 'summary',
  memories: 'injected memories',
  history: 'verbatim history',
  compressed: 'compressed records and previews',
  toolResults: 'tool results',
  toolDefinitions: 'tool definitions',
  outputReserve: 'output reserve',
};

export const WINDOW_PARTS = Object.keys(WINDOW_PART_LABELS) as WindowPart[];

export type WindowComposition = Record<WindowPart, number>;

export interface InspectedStrategy {
  strategy: string;
  applied: boolean;
  tokensBefore: number;
  tokensAfter: number;
  messagesAffected: number;
  summarizerCalls: number;
  /** Set when the summarizer failed and its fallback wrote the summary. */
  fallback?: InspectedFallback;
}

/** A summarizer's failure a fallback covered (or a cut by the budget guard). */
export interface InspectedFallback {
  /** The summarizer that failed, or `budget-guard`. */
  from: string;
  /** The failure's kind (`timeout`, `refusal`, ...), when the record has it. */
  kind?: string;
  /** The class of the error behind it, when the record has it. */
  errorClass?: string;
  /** Kind and class in words, with the reason itself when it was seen live (a replay). */
  description: string;
}

/**
 * Where a call of the timeline comes from: the context manager's record in the store, a rebuild
 * from the stored history and working state (calls after the latest stored compaction, whose
 * records are written with the next one), or the inspector's replay of the history.
 */
export type CallOrigin = 'recorded' | 'reconstructed' | 'replay';

export interface InspectedCompaction {
  trigger: string;
  tokensBefore: number;
  tokensAfter: number;
  budgetTokens: number;
  targetTokens: number;
  summarizerCalls: number;
  strategies: InspectedStrategy[];
}

/** The provider's rejection a call was the retry of. */
export interface InspectedOverflow {
  /** ctxmem's count of the rejected request. */
  countedTokens: number;
  /** The provider's count of it, when its error said. */
  providerTokens?: number;
  /** The provider's limit, when its error said. */
  limitTokens?: number;
  /** Whether the retry went through or was rejected too. */
  outcome: 'retried' | 'rejected-again';
}

/** One line of the summary diff against the previous call's summary. */
export interface SummaryDiffLine {
  change: 'added' | 'removed' | 'kept';
  text: string;
}

/** A message of a prompt, as text (content is shown, never interpreted). */
export interface InspectedMessage {
  role: string;
  /** `ctxmem` kind for messages ctxmem created (summary, offload-preview, ...). */
  kind?: string;
  tokens: number;
  text: string;
  /** Characters left out of `text` to keep the page small. */
  omittedChars: number;
  offloadIds: string[];
  /**
   * Set when an earlier call's prompt carried the same message: its text is shown there only
   * (`text` is empty here), so the page grows with the distinct content, not calls × window.
   */
  shownInCall?: number;
}

export interface InspectedCall {
  /** 1-based call number. */
  number: number;
  origin: CallOrigin;
  /** ISO 8601 time of the call (for a rebuilt call: when its newest message was stored). */
  at: string;
  /** Messages of the original history the call was made with. */
  historyMessages: number;
  /** Tokens of the prepared prompt's messages. */
  tokens: number;
  contextWindow: number;
  budgetTokens: number;
  triggerTokens: number;
  composition: WindowComposition;
  /**
   * The count ratio the call's budget used (provider tokens per counted token, learned from
   * `observations` provider reports; 0: the prior), and the input tokens the provider reported for
   * the call when its usage was handed over.
   */
  calibration?: { ratio: number; observations: number; providerTokens?: number };
  /** Set on a call prepared again because the provider rejected the previous attempt as too long. */
  overflow?: InspectedOverflow;
  compaction?: InspectedCompaction;
  /** The summarizer that ran in this call's compaction, if one ran. */
  summarizer?: string;
  /** The summarizer failures fallbacks covered in this call. */
  fallbacks: InspectedFallback[];
  /** The rolling summary in this call's prompt, rendered. */
  summary?: string;
  /** Against the previous call's summary; empty when the summary did not change. */
  summaryDiff: SummaryDiffLine[];
  summaryChanged: boolean;
  memoryCards: InspectedMemoryCard[];
  messages: InspectedMessage[];
}

export interface InspectedOffload {
  id: string;
  /** The call whose prompt first carried the preview. */
  firstCall: number;
  role: string;
  /** What stayed in the prompt in its place. */
  preview: string;
  /** The original message, as text. */
  original: string;
  omittedChars: number;
  originalTokens: number;
  /** Set when the original could not be read. */
  missing?: string;
}

export interface InspectedMemoryCard {
  id: string;
  type: string;
  content: string;
  score: number;
  /** Whether the card made it into the prompt (the block's token budget may leave some out). */
  injected: boolean;
}

/** The working state as the store recorded it (session mode only). */
export interface RecordedState {
  version: number;
  cycle: number;
  summarizedCount: number;
  historyMessages: number;
  summary?: string;
  messages: InspectedMessage[];
}

export interface Inspection {
  title: string;
  /** What was inspected and how, one sentence each (shown at the top). */
  notes: string[];
  /** Token counter used. */
  counter: string;
  /**
   * Where the calls come from: the context manager's call records, or a replay of the history.
   * @default 'replay'
   */
  timeline?: 'recorded' | 'replay';
  calls: InspectedCall[];
  offloads: InspectedOffload[];
  recorded?: RecordedState;
}

import type {
  CompactionReport,
  CompactionTrigger,
  CompleteFn,
  CompressionSettings,
  EventListener,
  MemoryCardDraft,
  Message,
  OffloadStore,
  Scope,
  StructuredSummary,
  Summarizer,
  TokenCounter,
} from '../contracts/index.js';

export type ConversationFormat = 'openai-chat' | 'ai-sdk';

export type HistoryMode = 'compressed' | 'recent-only' | 'summary-only';

export interface ParsedConversation {
  format: ConversationFormat;
  messages: Message[];
  /** Whatever surrounded the messages (a request body's `model`, `tools`, ...), for serialization. */
  envelope: unknown;
}

export interface CompactOptions {
  budgetTokens: number;
  targetTokens?: number;
  counter: TokenCounter;
  summarizer: Summarizer;
  offloadStore: OffloadStore;
  scope?: Scope;
  history?: HistoryMode;
  settings?: Partial<CompressionSettings>;
  /** Compact even when already under the target. */
  force?: boolean;
  trigger?: CompactionTrigger;
  onEvent?: EventListener;
}

export interface CompactResult {
  messages: Message[];
  summary?: StructuredSummary;
  report: CompactionReport;
  cards: MemoryCardDraft[];
}

export interface BudgetPlan {
  contextWindow: number;
  budgetTokens: number;
  triggerTokens: number;
  targetTokens: number;
}

/**
 * Everything the CLI uses from the rest of ctxmem, in one place: the commands only see this
 * interface, so they can be tested with stand-ins, and `--help` / `--version` do not pay for
 * loading the tokenizer.
 */
export interface CliDependencies {
  parseConversation(json: unknown): ParsedConversation;
  serializeConversation(
    messages: readonly Message[],
    format: ConversationFormat,
    envelope: unknown,
  ): unknown;
  createTokenCounter(options: { model?: string }): TokenCounter;
  compact(messages: readonly Message[], options: CompactOptions): Promise<CompactResult>;
  createExtractiveSummarizer(options: { counter: TokenCounter }): Summarizer;
  createModelSummarizer(options: {
    complete: CompleteFn;
    counter: TokenCounter;
    contextWindow: number;
    name?: string;
  }): Summarizer;
  withFallback(primary: Summarizer, ...fallbacks: Summarizer[]): Summarizer;
  createFileOffloadStore(options: { root: string }): OffloadStore;
  createInMemoryOffloadStore(): OffloadStore;
  resolveContextWindow(modelId: string): number | undefined;
  resolveBudget(options: { contextWindow: number }): BudgetPlan;
}

/** The real implementations, loaded on first use. */
export async function loadDefaultDependencies(): Promise<CliDependencies> {
  const module = await import('./default-dependencies.js');
  return module.defaultDependencies;
}

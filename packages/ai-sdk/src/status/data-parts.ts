import type { CompactionTrigger, StrategyName, SummarizerFailureKind } from '@ctxmem/core';

/** A compaction as a chat UI shows it: begun (transient), or done (kept in the message). */
export type CtxmemCompactionData =
  | {
      state: 'started';
      trigger: CompactionTrigger;
      /** Tokens of the prompt before the compaction. */
      tokensBefore: number;
      /** What the prompt must fit in. */
      budgetTokens: number;
    }
  | {
      state: 'finished';
      trigger: CompactionTrigger;
      tokensBefore: number;
      tokensAfter: number;
      budgetTokens: number;
      /** The strategies that changed the prompt, in order. */
      strategies: StrategyName[];
      summarizerCalls: number;
      durationMs: number;
    };

/**
 * The summarizer failed and the offline fallback wrote the summary: who failed, and how as a
 * word-free kind (the failure's text stays on the server: it can quote a provider's message).
 */
export interface CtxmemSummarizerFallbackData {
  from: string;
  kind?: SummarizerFailureKind;
}

/** Long-term memories injected into the prompt. */
export interface CtxmemMemoriesData {
  /** Memory cards injected. */
  cards: number;
  /** Tokens they take in the prompt. */
  tokens: number;
}

/**
 * ctxmem's data parts, keyed as the AI SDK keys data types (the part type is `data-` + key), for
 * a typed `useChat<UIMessage<Metadata, CtxmemDataParts>>` (intersect with the app's own data
 * types): `data-ctxmem-compaction`, `data-ctxmem-summarizer-fallback`, `data-ctxmem-memories`.
 */
// A type, not an interface: the AI SDK's `UIDataTypes` constraint needs an index signature.
export type CtxmemDataParts = {
  'ctxmem-compaction': CtxmemCompactionData;
  'ctxmem-summarizer-fallback': CtxmemSummarizerFallbackData;
  'ctxmem-memories': CtxmemMemoriesData;
};

/** One of ctxmem's data parts as a UI message stream chunk (what `writer.write` takes). */
export type CtxmemDataChunk = {
  [Name in keyof CtxmemDataParts]: {
    type: `data-${Name}`;
    id?: string;
    data: CtxmemDataParts[Name];
    transient?: boolean;
  };
}[keyof CtxmemDataParts];

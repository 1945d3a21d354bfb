import type { Budget } from '../budget/index.js';
import type {
  CallCompaction,
  CallComposition,
  CallRecord,
  CompactionReport,
  Message,
  TokenCounter,
} from '../contracts/index.js';

/** The message parts of a window: where each prompt message's tokens are counted. */
export type MessagePart = Exclude<
  keyof CallComposition,
  'toolDefinitions' | 'reserved' | 'outputReserve'
>;

/** Which part of the window a prompt message belongs to. */
export function windowPartOf(message: Message): MessagePart {
  switch (message.ctxmem?.kind) {
    case 'summary':
      return 'summary';
    case 'memory-injection':
      return 'memories';
    case 'tool-run-record':
    case 'offload-preview':
    case 'compressed-result':
      return 'compressed';
    case 'bootstrap':
      return 'system';
    default:
      if (message.role === 'system') return 'system';
      return message.role === 'tool' ? 'toolResults' : 'history';
  }
}

export interface CallRecordInput {
  /** Messages of the original history. */
  historyMessages: number;
  tokensBefore: number;
  /** The prepared prompt. */
  messages: readonly Message[];
  tokens: number;
  budget: Budget;
  toolTokens: number;
  reservedTokens: number;
  /** Set when the prompt's compacted part is new at this call. */
  compaction?: {
    source: CallCompaction['source'];
    report?: CompactionReport;
    summarizer: string;
  };
  memories: ReadonlyArray<{ id: string; score: number }>;
  repairs: readonly string[];
  /** @default new Date() */
  now?: Date;
}

/**
 * The record of one prepared call. Linear in the prompt's messages; their token counts come from
 * the counter's cache (each was counted while preparing), so recording costs no new counting.
 */
export function createCallRecord({
  historyMessages,
  tokensBefore,
  messages,
  tokens,
  budget,
  toolTokens,
  reservedTokens,
  compaction,
  memories,
  repairs,
  now = new Date(),
  counter,
}: CallRecordInput & { counter: TokenCounter }): CallRecord {
  const composition: CallComposition = {
    system: 0,
    summary: 0,
    memories: 0,
    history: 0,
    compressed: 0,
    toolResults: 0,
    toolDefinitions: toolTokens,
    reserved: reservedTokens,
    outputReserve: budget.reserveTokens,
  };
  const offloadIds: string[] = [];
  let counted = 0;
  for (const message of messages) {
    const messageTokens = counter.countMessage(message);
    composition[windowPartOf(message)] += messageTokens;
    counted += messageTokens;
    for (const id of message.ctxmem?.offloadIds ?? []) offloadIds.push(id);
  }
  // The prompt's own overhead (the reply priming, a few tokens) goes with the system part, so the
  // message parts add up to the prompt's tokens.
  composition.system += tokens - counted;
  return {
    at: now.toISOString(),
    historyMessages,
    tokensBefore,
    tokens,
    budget: {
      contextWindow: budget.contextWindow,
      budgetTokens: budget.budgetTokens,
      triggerTokens: budget.triggerTokens,
      targetTokens: budget.targetTokens,
    },
    composition,
    ...(compaction ? { compaction: describeCompaction(compaction) } : {}),
    memories: memories.map(({ id, score }) => ({ id, score })),
    offloadIds,
    ...(repairs.length > 0 ? { repairs: [...repairs] } : {}),
  };
}

function describeCompaction({
  source,
  report,
  summarizer,
}: NonNullable<CallRecordInput['compaction']>): CallCompaction {
  return {
    source,
    ...(report ? { trigger: report.trigger } : {}),
    strategies: (report?.strategies ?? []).map((strategy) => ({
      strategy: strategy.strategy,
      applied: strategy.applied,
      tokensBefore: strategy.tokensBefore,
      tokensAfter: strategy.tokensAfter,
      messagesAffected: strategy.messagesAffected,
      summarizerCalls: strategy.summarizerCalls,
      ...(strategy.fallback ? { fallback: { from: strategy.fallback.from } } : {}),
    })),
    summarizerCalls: report?.summarizerCalls ?? 0,
    summarizer,
    offloadIds: (report?.strategies ?? []).flatMap((strategy) => strategy.offloadIds ?? []),
  };
}

/**
 * The record with `call` added, keeping the last `limit`: a new array, so a state write in flight
 * keeps the list it was given. Amortised O(limit) per call, with `limit` small (50 by default).
 */
export function appendCallRecord(
  calls: readonly CallRecord[] | undefined,
  call: CallRecord,
  limit: number,
): CallRecord[] {
  const kept = calls ?? [];
  const start = Math.max(0, kept.length + 1 - limit);
  return [...kept.slice(start), call];
}

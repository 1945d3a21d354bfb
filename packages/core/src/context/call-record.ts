import type { Budget } from '../budget/index.js';
import type {
  CallCalibration,
  CallCompaction,
  CallComposition,
  CallOverflow,
  CallRecord,
  CallStrategy,
  CompactionReport,
  Message,
  StoredMessage,
  SummarizerFallback,
  TokenCounter,
  WorkingState,
} from '../contracts/index.js';
import { requireOptions, TOKEN_COUNTER_OPTION } from '../validation/index.js';

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
  /** The count ratio the budget used. @default undefined (not recorded) */
  calibration?: CallCalibration;
  /** Set when this call retries one the provider rejected as too long. @default undefined */
  overflow?: CallOverflow;
  /** @default new Date() */
  now?: Date;
}

/**
 * The record of one prepared call. Linear in the prompt's messages; their token counts come from
 * the counter's cache (each was counted while preparing), so recording costs no new counting.
 */
export function createCallRecord(options: CallRecordInput & { counter: TokenCounter }): CallRecord {
  const {
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
    calibration,
    overflow,
    now = new Date(),
    counter,
  } = requireOptions(options, 'createCallRecord', {
    messages: { expected: 'the prompt messages, an array' },
    budget: { expected: 'the resolved Budget' },
    counter: TOKEN_COUNTER_OPTION,
  });
  const window = createWindowTally(counter, {
    toolDefinitions: toolTokens,
    reserved: reservedTokens,
    outputReserve: budget.reserveTokens,
  });
  for (const message of messages) window.add(message);
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
    composition: window.composition(tokens),
    ...(compaction ? { compaction: describeCompaction(compaction) } : {}),
    memories: memories.map(({ id, score }) => ({ id, score })),
    offloadIds: window.offloadIds(),
    ...(repairs.length > 0 ? { repairs: [...repairs] } : {}),
    ...(calibration ? { calibration: { ...calibration } } : {}),
    ...(overflow ? { overflow: { ...overflow } } : {}),
  };
}

/**
 * A window's composition, one message at a time: each message's tokens go to its part (from the
 * counter's cache when it was counted before) and its offload ids are collected.
 */
function createWindowTally(
  counter: TokenCounter,
  fixed: Pick<CallComposition, 'toolDefinitions' | 'reserved' | 'outputReserve'>,
) {
  const parts: Record<MessagePart, number> = {
    system: 0,
    summary: 0,
    memories: 0,
    history: 0,
    compressed: 0,
    toolResults: 0,
  };
  const offloadIds: string[] = [];
  let counted = 0;
  return {
    add(message: Message): void {
      const tokens = counter.countMessage(message);
      parts[windowPartOf(message)] += tokens;
      counted += tokens;
      // No `?? []`: a call records thousands of messages, most without offloads.
      const ids = message.ctxmem?.offloadIds;
      if (ids) for (const id of ids) offloadIds.push(id);
    },
    /** Tokens of the messages added so far. */
    counted: () => counted,
    /**
     * The composition of a prompt of `tokens`: its own overhead (the reply priming, a few tokens)
     * goes with the system part, so the message parts add up to the prompt's tokens.
     */
    composition: (tokens: number): CallComposition => ({
      ...parts,
      system: parts.system + tokens - counted,
      ...fixed,
    }),
    offloadIds: () => [...offloadIds],
  };
}

export interface ReconstructCallsInput {
  /** The stored working state: its messages stand for the history's first `summarizedCount`. */
  state: Pick<WorkingState, 'messages' | 'summarizedCount' | 'calls'>;
  /** The stored original history. */
  history: readonly StoredMessage[];
  /**
   * History lengths of the calls to rebuild, ascending: those past the last recorded call are
   * rebuilt, others are skipped.
   */
  ends: readonly number[];
  counter: TokenCounter;
}

/**
 * The calls made after the last recorded one, rebuilt from what the store holds: records ride on
 * the state writes compactions make, so the calls since the latest compaction are not stored, but
 * a call that did not compact sent the stored working messages followed by the history after
 * them, and both are stored (the history is appended on every call). Each rebuilt record takes
 * the last recorded call's budget, count ratio and fixed parts, and the time its newest message
 * was stored.
 * What it cannot know: the memories injected (none are counted) and a repair of the host's
 * messages. Linear in the messages: each is counted once, from the counter's cache.
 */
export function reconstructCallRecords(options: ReconstructCallsInput): CallRecord[] {
  const { state, history, ends, counter } = requireOptions(options, 'reconstructCallRecords', {
    state: { expected: 'the working state' },
    history: { expected: 'the stored history, an array' },
    ends: { expected: 'the history length at each call, an array' },
    counter: TOKEN_COUNTER_OPTION,
  });
  const last = state.calls?.at(-1);
  if (!last) return [];
  const { toolDefinitions, reserved, outputReserve } = last.composition;
  const window = createWindowTally(counter, { toolDefinitions, reserved, outputReserve });
  for (const message of state.messages) window.add(message);
  const offloadIds = window.offloadIds();
  const records: CallRecord[] = [];
  let position = state.summarizedCount;
  for (const end of ends) {
    if (end <= last.historyMessages || end < position || end > history.length) continue;
    while (position < end) window.add(history[position++]!.message);
    const tokens = window.counted() + counter.promptOverhead;
    records.push({
      at: history[end - 1]!.createdAt,
      historyMessages: end,
      tokensBefore: tokens,
      tokens,
      budget: { ...last.budget },
      composition: window.composition(tokens),
      memories: [],
      offloadIds: [...offloadIds],
      ...(last.calibration
        ? {
            calibration: {
              ratio: last.calibration.ratio,
              observations: last.calibration.observations,
            },
          }
        : {}),
    });
  }
  return records;
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
      ...(strategy.fallback ? { fallback: storableFallback(strategy.fallback) } : {}),
    })),
    summarizerCalls: report?.summarizerCalls ?? 0,
    summarizer,
    offloadIds: (report?.strategies ?? []).flatMap((strategy) => strategy.offloadIds ?? []),
  };
}

/** A fallback without its reason in words, which can quote the conversation: kind and class only. */
function storableFallback({
  from,
  kind,
  errorClass,
}: SummarizerFallback): NonNullable<CallStrategy['fallback']> {
  return {
    from,
    ...(kind === undefined ? {} : { kind }),
    ...(errorClass === undefined ? {} : { errorClass }),
  };
}

/**
 * The record with `call` replaced by `updated` (found from the newest end, where a call being
 * answered is): a new array, as `appendCallRecord` makes. The same array when `call` is gone.
 */
export function replaceCallRecord(
  calls: readonly CallRecord[] | undefined,
  call: CallRecord,
  updated: CallRecord,
): CallRecord[] | undefined {
  if (!calls) return undefined;
  const index = calls.lastIndexOf(call);
  if (index === -1) return calls as CallRecord[];
  const next = [...calls];
  next[index] = updated;
  return next;
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

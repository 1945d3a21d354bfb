import { type Budget, resolveBudget } from '../budget/index.js';
import { KeyedLru } from '../cache/index.js';
import type { EventListener, Message, Scope, TokenCounter } from '../contracts/index.js';
import {
  BudgetExceededError,
  CtxmemError,
  InvalidArgumentError,
  InvalidMessageError,
} from '../errors/index.js';
import { validateMessages } from '../messages/index.js';
import {
  checkToolPairing,
  repairMessages,
  repairToolPairing,
} from '../messages/validate-messages.js';
import { countToolDefinitions } from '../tokens/index.js';
import { messageFingerprint } from './message-fingerprint.js';

/**
 * Cheap shape checks on every call (an array of objects with a known role). Deeper problems
 * surface while counting; `explainInvalidInput` then turns them into a typed error.
 */
export function assertMessageArray(messages: unknown): asserts messages is readonly Message[] {
  if (!Array.isArray(messages)) {
    throw new InvalidMessageError({
      message: `prepare expects an array of messages, got ${messages === null ? 'null' : typeof messages}.`,
      path: 'messages',
    });
  }
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index] as { role?: unknown } | null;
    if (
      typeof message !== 'object' ||
      message === null ||
      !['system', 'user', 'assistant', 'tool'].includes(message.role as string)
    ) {
      throw new InvalidMessageError({
        message: `messages[${index}] is not a message with a system, user, assistant or tool role.`,
        path: `messages[${index}]`,
      });
    }
  }
}

/**
 * Turns an unexpected failure on malformed input (a TypeError on a missing field, a RangeError on
 * absurdly deep tool arguments) into the validator's typed error with its path. Full validation
 * costs too much for every call, so it only runs once something has already gone wrong.
 */
export function explainInvalidInput(error: unknown, messages: readonly Message[]): unknown {
  if (CtxmemError.isInstance(error)) return error;
  try {
    validateMessages(messages);
  } catch (validationError) {
    return validationError;
  }
  return error;
}

/**
 * Restates a prompt that cannot fit in terms of the whole request: what the system messages and
 * the newest user message need, plus the tool definitions and the output reserve, against the
 * window.
 */
export function explainBudget(error: unknown, budget: Budget): unknown {
  if (!BudgetExceededError.isInstance(error)) return error;
  const required = error.requiredTokens + budget.fixedTokens + budget.reserveTokens;
  return new BudgetExceededError({
    message: `The request cannot fit the ${budget.contextWindow}-token window: the system messages and the newest user message need ${error.requiredTokens} tokens, tool definitions and other fixed parts ${budget.fixedTokens} and the output reserve ${budget.reserveTokens}, ${required} in all.`,
    requiredTokens: required,
    budgetTokens: budget.contextWindow,
    cause: error,
  });
}

export interface RequestBudgetOptions {
  /** The manager's budget, used as is by requests without tools, output or reserved tokens. */
  budget: Budget;
  contextWindow: number;
  threshold: number;
  retainedRatio: number;
  /** @default the budget's default */
  reserve?: { ratio?: number; min?: number } | undefined;
  /** @default undefined (off) */
  maxMessages?: number | undefined;
  counter: TokenCounter;
}

/** The budget of one request, with what its tool definitions cost. */
export interface RequestBudget {
  budget: Budget;
  /** Tokens of the request's tool definitions. */
  toolTokens: number;
  /** Tokens the caller adds around the messages. */
  reservedTokens: number;
}

/**
 * The budget of each request: the manager's, less its tool definitions, what the caller adds
 * around the messages, and the requested output.
 */
export function createRequestBudget({
  budget,
  contextWindow,
  threshold,
  retainedRatio,
  reserve,
  maxMessages,
  counter,
}: RequestBudgetOptions) {
  /** Tool definition counts by the definitions' JSON (a few tool sets per application). */
  const toolCounts = new KeyedLru<number>(64);

  /**
   * Tokens of a request's tool definitions. Hosts send the same tools on every call (as new
   * objects): their JSON is the key, so counting them costs one `JSON.stringify` after the first.
   */
  function toolTokens(tools: readonly unknown[]): number {
    let key: string | undefined;
    try {
      key = JSON.stringify(tools);
    } catch {
      // countToolDefinitions names the definition JSON cannot hold.
      return countToolDefinitions(tools, counter);
    }
    const known = toolCounts.get(key);
    if (known !== undefined) return known;
    const tokens = countToolDefinitions(tools, counter);
    toolCounts.set(key, tokens);
    return tokens;
  }

  return function budgetFor(
    tools: readonly unknown[] | undefined,
    maxOutputTokens: number | undefined,
    reservedTokens = 0,
  ): RequestBudget {
    if (!Number.isSafeInteger(reservedTokens) || reservedTokens < 0) {
      throw new InvalidArgumentError({
        message: `reservedTokens must be a non-negative integer, got ${String(reservedTokens)}`,
        argument: 'reservedTokens',
      });
    }
    if (
      (tools === undefined || tools.length === 0) &&
      maxOutputTokens === undefined &&
      reservedTokens === 0
    ) {
      return { budget, toolTokens: 0, reservedTokens: 0 };
    }
    const definitions = tools === undefined ? 0 : toolTokens(tools);
    return {
      budget: resolveBudget({
        contextWindow,
        threshold,
        retainedRatio,
        reserve,
        maxMessages,
        fixedTokens: definitions + reservedTokens,
        ...(maxOutputTokens === undefined ? {} : { outputTokens: maxOutputTokens }),
      }),
      toolTokens: definitions,
      reservedTokens,
    };
  };
}

export interface RepairOptions {
  /** Repair a history whose tool calls and results do not pair up; reject it when false. */
  repairInput: boolean;
  scope: Scope;
  /** @default undefined */
  onEvent?: EventListener;
}

/** A history ready for compaction, with what was repaired in it. */
export interface RepairedInput {
  messages: readonly Message[];
  fingerprints: readonly string[];
  /** The kinds of repair made (empty when none was needed). */
  repairs: string[];
}

/**
 * A dangling tool call, a late or orphan result makes every provider reject the prompt: the repair
 * documented in `repairMessages` runs on every call (linear, a no-op when all pairs up), or, with
 * `repairInput` off, the validator's error names the first problem.
 */
export function repairInput(
  original: readonly Message[],
  fingerprints: readonly string[],
  needsTextRepair: boolean,
  { repairInput: repair, scope, onEvent }: RepairOptions,
): RepairedInput {
  if (!repair) {
    // Throws the validator's error with the path of the first problem, if any.
    if (needsTextRepair || checkToolPairing(original).length > 0) validateMessages(original);
    return { messages: original, fingerprints, repairs: [] };
  }
  // Lone surrogates (rare) need the full repair; pairing alone is one linear pass.
  const repaired = needsTextRepair ? repairMessages(original) : repairToolPairing(original);
  if (repaired.repairs.length === 0) return { messages: original, fingerprints, repairs: [] };
  const repairs = repaired.repairs.map((entry) => entry.kind);
  onEvent?.({ type: 'input-repaired', scope, repairs });
  return {
    messages: repaired.messages,
    fingerprints: repaired.messages.map(messageFingerprint),
    repairs,
  };
}

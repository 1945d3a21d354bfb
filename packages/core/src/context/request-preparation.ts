import { type Budget, type ResolveBudgetOptions, resolveBudget } from '../budget/index.js';
import type { EventListener, Message, Scope, TokenCounter } from '../contracts/index.js';
import {
  BudgetExceededError,
  CtxmemError,
  InvalidArgumentError,
  InvalidMessageError,
} from '../errors/index.js';
import { validateMessages } from '../messages/index.js';
import { describeThrown, describeValue } from '../messages/json-values.js';
import { requireEntry } from '../messages/message-shape.js';
import {
  checkToolPairing,
  repairMessages,
  repairToolPairing,
} from '../messages/validate-messages.js';
import { countToolDefinitions } from '../tokens/index.js';
import { messageFingerprint } from './message-fingerprint.js';
import { sameValue, snapshotValue } from './same-value.js';

/** Tool sets whose counts a manager remembers. */
const REMEMBERED_TOOL_SETS = 8;

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
    const path = `messages[${index}]`;
    requireEntry(messages, index, path);
    const message = messages[index] as { role?: unknown } | null;
    if (typeof message !== 'object' || message === null) {
      throw new InvalidMessageError({
        message: `${path}: expected a message object, got ${describeValue(message)}`,
        path,
      });
    }
    let role: unknown;
    try {
      role = message.role;
    } catch (error) {
      throw new InvalidMessageError({
        message: `${path}.role: reading it threw (${describeThrown(error)})`,
        path: `${path}.role`,
        cause: error,
      });
    }
    if (role !== 'system' && role !== 'user' && role !== 'assistant' && role !== 'tool') {
      throw new InvalidMessageError({
        message: `${path} is not a message with a system, user, assistant or tool role.`,
        path,
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
  const { countRatio } = budget;
  const required =
    Math.ceil((error.requiredTokens + budget.fixedTokens) * countRatio) + budget.reserveTokens;
  const scaled =
    countRatio === 1 ? '' : ` (×${Math.round(countRatio * 100) / 100} as the provider counts)`;
  return new BudgetExceededError({
    message: `The request cannot fit the ${budget.contextWindow}-token window: the system messages and the newest user message need ${error.requiredTokens} tokens, tool definitions and other fixed parts ${budget.fixedTokens}${scaled} and the output reserve ${budget.reserveTokens}, ${required} in all.`,
    requiredTokens: required,
    budgetTokens: budget.contextWindow,
    cause: error,
  });
}

/** The manager's budget settings: what every request's budget is resolved from. */
export type BudgetSettings = Omit<
  ResolveBudgetOptions,
  'fixedTokens' | 'outputTokens' | 'countRatio'
>;

/** The budget of one request, with what its tool definitions cost. */
export interface RequestBudget {
  budget: Budget;
  /** Tokens of the request's tool definitions. */
  toolTokens: number;
  /** Tokens the caller adds around the messages. */
  reservedTokens: number;
}

/** What a request's budget is computed with besides the request's own figures. */
export interface BudgetScale {
  /** Provider tokens per counted token (see `resolveBudget`). @default 1 */
  countRatio?: number;
  /** A window smaller than the manager's (a provider's reported limit). @default the manager's */
  contextWindow?: number;
}

/**
 * The manager's budget (`budgetOf`: a request without tools, output or reserved tokens) and the
 * budget of each request (`budgetFor`): the manager's, less its tool definitions, what the caller
 * adds around the messages, and the requested output, at the count ratio of the moment.
 */
export function createRequestBudget(settings: BudgetSettings, counter: TokenCounter) {
  // Checks the settings once, up front.
  resolveBudget(settings);
  /** The last request budget: an application sends the same tools and limits call after call. */
  let last:
    | {
        fixedTokens: number;
        outputTokens: number | undefined;
        countRatio: number;
        contextWindow: number;
        budget: Budget;
      }
    | undefined;
  /** The latest tool sets and their counts, newest first (an application sends a few). */
  const toolCounts: Array<{ tools: unknown; tokens: number }> = [];

  /**
   * Tokens of a request's tool definitions. Hosts send the same tools on every call, as new
   * objects: a structural comparison with a private copy of the tool sets counted before answers
   * without serialising the definitions again (tens of kilobytes of garbage per call with 25
   * tools).
   */
  function toolTokens(tools: readonly unknown[]): number {
    for (let index = 0; index < toolCounts.length; index++) {
      const known = toolCounts[index]!;
      if (!sameValue(known.tools, tools)) continue;
      if (index > 0) toolCounts.unshift(...toolCounts.splice(index, 1));
      return known.tokens;
    }
    // Throws InvalidArgumentError naming a definition JSON cannot hold.
    const tokens = countToolDefinitions(tools, counter);
    toolCounts.unshift({ tools: snapshotValue(tools), tokens });
    if (toolCounts.length > REMEMBERED_TOOL_SETS) toolCounts.pop();
    return tokens;
  }

  function resolved(
    fixedTokens: number,
    outputTokens: number | undefined,
    { countRatio = 1, contextWindow = settings.contextWindow }: BudgetScale,
  ): Budget {
    if (
      last?.fixedTokens !== fixedTokens ||
      last.outputTokens !== outputTokens ||
      last.countRatio !== countRatio ||
      last.contextWindow !== contextWindow
    ) {
      const budget = resolveBudget({
        ...settings,
        contextWindow,
        fixedTokens,
        countRatio,
        ...(outputTokens === undefined ? {} : { outputTokens }),
      });
      last = { fixedTokens, outputTokens, countRatio, contextWindow, budget };
    }
    return last.budget;
  }

  function budgetFor(
    tools: readonly unknown[] | undefined,
    maxOutputTokens: number | undefined,
    reservedTokens = 0,
    scale: BudgetScale = {},
  ): RequestBudget {
    if (!Number.isSafeInteger(reservedTokens) || reservedTokens < 0) {
      throw new InvalidArgumentError({
        message: `reservedTokens must be a non-negative integer, got ${String(reservedTokens)}`,
        argument: 'reservedTokens',
      });
    }
    const definitions = tools === undefined || tools.length === 0 ? 0 : toolTokens(tools);
    const budget = resolved(definitions + reservedTokens, maxOutputTokens, scale);
    return { budget, toolTokens: definitions, reservedTokens };
  }

  return {
    budgetOf: (scale: BudgetScale = {}) => resolved(0, undefined, scale),
    budgetFor,
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

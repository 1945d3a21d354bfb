import type { CompactionTrigger } from '../contracts/index.js';
import { InvalidArgumentError } from '../errors/index.js';
import type { Budget } from './resolve-budget.js';

export interface CheckTriggerOptions {
  /** The caller asked for a compaction (a `/compact` command, a button). @default false */
  manual?: boolean;
}

/**
 * Which trigger fires for a prompt of `tokens` tokens and `messageCount` messages, or `undefined`
 * when none does. Checked in order: `manual`; `reserve` (the prompt eats into the room kept for
 * the reply: over `budgetTokens`); `threshold` (at or over `triggerTokens`); `message-count`
 * (more messages than `maxMessages`).
 */
export function checkTrigger(
  tokens: number,
  messageCount: number,
  budget: Budget,
  { manual = false }: CheckTriggerOptions = {},
): CompactionTrigger | undefined {
  if (typeof tokens !== 'number' || !Number.isFinite(tokens) || tokens < 0) {
    throw new InvalidArgumentError({
      message: `tokens must be a non-negative number, got ${tokens}`,
      argument: 'tokens',
    });
  }
  if (!Number.isInteger(messageCount) || messageCount < 0) {
    throw new InvalidArgumentError({
      message: `messageCount must be a non-negative integer, got ${messageCount}`,
      argument: 'messageCount',
    });
  }
  if (manual) return 'manual';
  if (tokens > budget.budgetTokens) return 'reserve';
  if (tokens >= budget.triggerTokens) return 'threshold';
  if (budget.maxMessages !== undefined && messageCount > budget.maxMessages) {
    return 'message-count';
  }
  return undefined;
}

import { describe, expect, it } from 'vitest';
import { resolveBudget } from '../budget/index.js';
import type { CtxmemEvent, Message } from '../contracts/index.js';
import { BudgetExceededError, InvalidArgumentError, InvalidMessageError } from '../errors/index.js';
import { createTokenCounter } from '../tokens/index.js';
import { messageFingerprint } from './message-fingerprint.js';
import {
  assertMessageArray,
  createRequestBudget,
  explainBudget,
  repairInput,
} from './request-preparation.js';

const counter = createTokenCounter();
const budget = resolveBudget({ contextWindow: 10_000 });
const budgetFor = createRequestBudget({
  budget,
  contextWindow: 10_000,
  threshold: 0.8,
  retainedRatio: 0.6,
  counter,
});
const tools = [{ name: 'search', description: 'Searches the web', parameters: { type: 'object' } }];

describe('createRequestBudget', () => {
  it('uses the manager budget for a plain request and takes tools, output and reserved tokens off it', () => {
    expect(budgetFor(undefined, undefined).budget).toBe(budget);
    const request = budgetFor(tools, 500, 100);
    expect(request.toolTokens).toBeGreaterThan(0);
    expect(request.reservedTokens).toBe(100);
    expect(request.budget.fixedTokens).toBe(request.toolTokens + 100);
    expect(request.budget.reserveTokens).toBe(500);
    expect(request.budget.budgetTokens).toBe(10_000 - request.toolTokens - 100 - 500);
  });

  it('rejects reserved tokens that are not a non-negative integer', () => {
    expect(() => budgetFor(undefined, undefined, -1)).toThrow(InvalidArgumentError);
    expect(() => budgetFor(undefined, undefined, 0.5)).toThrow(InvalidArgumentError);
  });
});

describe('repairInput', () => {
  const dangling: Message[] = [
    { role: 'user', content: 'hi' },
    {
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: 'a', toolName: 'search', input: {} }],
    },
    { role: 'user', content: 'and?' },
  ];
  const fingerprints = dangling.map(messageFingerprint);

  it('repairs a dangling tool call, says so in an event and returns new fingerprints', () => {
    const events: CtxmemEvent[] = [];
    const repaired = repairInput(dangling, fingerprints, false, {
      repairInput: true,
      scope: {},
      onEvent: (event) => events.push(event),
    });
    expect(repaired.repairs.length).toBeGreaterThan(0);
    expect(repaired.messages.length).toBe(dangling.length + 1);
    expect(repaired.fingerprints).toEqual(repaired.messages.map(messageFingerprint));
    expect(events).toEqual([{ type: 'input-repaired', scope: {}, repairs: repaired.repairs }]);
  });

  it('rejects it when repair is off, and passes a paired history through unchanged', () => {
    expect(() =>
      repairInput(dangling, fingerprints, false, { repairInput: false, scope: {} }),
    ).toThrow(InvalidMessageError);
    const paired = dangling.slice(0, 1);
    const result = repairInput(paired, fingerprints.slice(0, 1), false, {
      repairInput: true,
      scope: {},
    });
    expect(result.messages).toBe(paired);
    expect(result.repairs).toEqual([]);
  });
});

describe('assertMessageArray and explainBudget', () => {
  it('names the first message that is not a message', () => {
    expect(() => assertMessageArray([{ role: 'user', content: '' }, { role: 'robot' }])).toThrow(
      /messages\[1\]/,
    );
    expect(() => assertMessageArray('hello')).toThrow(InvalidMessageError);
  });

  it('restates a budget failure against the whole window', () => {
    const request = budgetFor(tools, 500);
    const error = new BudgetExceededError({
      message: 'too big',
      requiredTokens: 9_900,
      budgetTokens: request.budget.budgetTokens,
    });
    const explained = explainBudget(error, request.budget) as BudgetExceededError;
    expect(explained.requiredTokens).toBe(9_900 + request.budget.fixedTokens + 500);
    expect(explained.budgetTokens).toBe(10_000);
    const other = new Error('other');
    expect(explainBudget(other, request.budget)).toBe(other);
  });
});

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
const { budgetOf, budgetFor } = createRequestBudget(
  { contextWindow: 10_000, threshold: 0.8, retainedRatio: 0.6 },
  counter,
);
const tools = [{ name: 'search', description: 'Searches the web', parameters: { type: 'object' } }];

describe('createRequestBudget', () => {
  it('uses the manager budget for a plain request and takes tools, output and reserved tokens off it', () => {
    const budget = budgetOf();
    expect(budget).toEqual(resolveBudget({ contextWindow: 10_000 }));
    expect(budgetFor(undefined, undefined).budget).toBe(budget);
    const request = budgetFor(tools, 500, 100);
    expect(request.toolTokens).toBeGreaterThan(0);
    expect(request.reservedTokens).toBe(100);
    expect(request.budget.fixedTokens).toBe(request.toolTokens + 100);
    expect(request.budget.reserveTokens).toBe(500);
    expect(request.budget.budgetTokens).toBe(10_000 - request.toolTokens - 100 - 500);
  });

  it('divides the room by the count ratio and takes a smaller window when given one', () => {
    const plain = budgetFor(tools, 500).budget;
    const scaled = budgetFor(tools, 500, 0, { countRatio: 1.25 }).budget;
    expect(scaled.countRatio).toBe(1.25);
    expect(scaled.reserveTokens).toBe(500);
    expect(scaled.budgetTokens).toBe(Math.floor((10_000 - 500) / 1.25) - plain.fixedTokens);
    // The provider's tokens of the whole request still fit the window.
    expect((scaled.budgetTokens + scaled.fixedTokens) * 1.25 + 500).toBeLessThanOrEqual(10_000);
    const limited = budgetFor(tools, 500, 0, { contextWindow: 6_000 }).budget;
    expect(limited.contextWindow).toBe(6_000);
    expect(limited.budgetTokens).toBe(6_000 - 500 - plain.fixedTokens);
  });

  it('counts a tool set once, knows it rebuilt from new objects, and recounts it changed in place', () => {
    let counted = 0;
    const countingCounter = {
      ...counter,
      countText: (text: string) => {
        counted++;
        return counter.countText(text);
      },
    };
    const request = createRequestBudget(
      { contextWindow: 10_000, threshold: 0.8, retainedRatio: 0.6 },
      countingCounter,
    ).budgetFor;
    const definitions = [
      { type: 'function', name: 'a', description: 'First tool.', inputSchema: { type: 'object' } },
      { type: 'function', name: 'b', description: 'Second tool.', inputSchema: { type: 'object' } },
    ];
    const first = request(definitions, 500);
    expect(counted).toBe(2);
    // Hosts rebuild the definitions on every call: the same content is not counted again.
    expect(request(structuredClone(definitions), 500)).toEqual(first);
    expect(request(structuredClone(definitions), 500).budget).toBe(first.budget);
    expect(counted).toBe(2);
    // The cache keeps its own copy: a definition changed in place is a new tool set.
    definitions[0]!.description = `First tool. ${'It takes a long description. '.repeat(40)}`;
    const changed = request(definitions, 500);
    expect(counted).toBe(4);
    expect(changed.toolTokens).toBeGreaterThan(first.toolTokens + 100);
    expect(changed.budget.budgetTokens).toBe(
      first.budget.budgetTokens - (changed.toolTokens - first.toolTokens),
    );
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    expect(() => request([cyclic], 500)).toThrow(InvalidArgumentError);
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

  it('pairs a long well-paired history as it is, and an id repeated thousands of times in order', () => {
    const history: Message[] = [{ role: 'user', content: 'go' }];
    for (let step = 0; step < 500; step++) {
      history.push(
        {
          role: 'assistant',
          content: [{ type: 'tool-call', toolCallId: `c${step}`, toolName: 'search', input: {} }],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: `c${step}`,
              toolName: 'search',
              output: { type: 'text', value: 'r' },
            },
          ],
        },
      );
    }
    const clean = repairInput(history, history.map(messageFingerprint), false, {
      repairInput: true,
      scope: {},
    });
    expect(clean.repairs).toEqual([]);
    expect(clean.messages).toBe(history);

    // 3,000 calls with one id and their 3,000 results: each call gets its own id, and each result
    // answers the next call in order (a quadratic search took seconds here).
    const count = 3_000;
    const repeated: Message[] = [
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: Array.from({ length: count }, () => ({
          type: 'tool-call' as const,
          toolCallId: 'x',
          toolName: 'search',
          input: {},
        })),
      },
      {
        role: 'tool',
        content: Array.from({ length: count }, (_, index) => ({
          type: 'tool-result' as const,
          toolCallId: 'x',
          toolName: 'search',
          output: { type: 'text' as const, value: `r${index}` },
        })),
      },
    ];
    const repaired = repairInput(repeated, repeated.map(messageFingerprint), false, {
      repairInput: true,
      scope: {},
    });
    const calls = (repaired.messages[1] as { content: Array<{ toolCallId: string }> }).content;
    const results = (
      repaired.messages[2] as { content: Array<{ toolCallId: string; output: { value: string } }> }
    ).content;
    expect(new Set(calls.map((call) => call.toolCallId)).size).toBe(count);
    expect(calls.slice(0, 3).map((call) => call.toolCallId)).toEqual(['x', 'x-2', 'x-3']);
    expect(results.map((result) => result.toolCallId)).toEqual(
      calls.map((call) => call.toolCallId),
    );
    expect(results[2]!.output.value).toBe('r2');
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

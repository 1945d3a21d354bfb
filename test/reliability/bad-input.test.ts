/**
 * Bad input, fuzzed: malformed message arrays, huge and deeply nested content, invalid UTF-16 and
 * nonsense budgets must end in a typed error or a documented repair — never a crash (a
 * `TypeError` or `RangeError` escaping), a hang, or a prompt over its budget.
 */
import {
  BudgetExceededError,
  CtxmemError,
  compact,
  createContextManager,
  createExtractiveSummarizer,
  createInMemoryOffloadStore,
  createTokenCounter,
  InvalidArgumentError,
  InvalidMessageError,
  type Message,
  messageText,
  repairMessages,
  validateMessages,
} from '@ctxmem/core';
import { MAX_MESSAGE_JSON_DEPTH } from '@ctxmem/core/adapter-kit';
import { arbitraryMessages, checkCompactionInvariants } from '@ctxmem/core/test';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectValidPrompt, filler } from './helpers.js';

const counter = createTokenCounter();
const summarizer = createExtractiveSummarizer({ counter });

// ---------------------------------------------------------------------------------------------
// Corruptions of a valid history

type Corruption =
  | 'unknown-role'
  | 'missing-role'
  | 'null-content'
  | 'number-content'
  | 'object-content'
  | 'null-message'
  | 'empty-message-id'
  | 'missing-tool-call-id'
  | 'nan-in-arguments'
  | 'function-in-arguments'
  | 'too-deep-arguments'
  | 'unknown-part-type'
  | 'dangling-tool-call'
  | 'orphan-tool-result'
  | 'duplicate-tool-call-id'
  | 'late-tool-result'
  | 'lone-surrogate'
  | 'circular-message'
  | 'circular-arguments'
  | 'bigint-in-arguments'
  | 'function-in-content'
  | 'throwing-getter'
  | 'hole'
  | 'undefined-message';

/** Corruptions that `repairMessages` fixes (documented in `MessageRepair`). */
const REPAIRABLE: ReadonlySet<Corruption> = new Set([
  'dangling-tool-call',
  'orphan-tool-result',
  'duplicate-tool-call-id',
  'late-tool-result',
  'lone-surrogate',
]);

const corruptions: readonly Corruption[] = [
  'unknown-role',
  'missing-role',
  'null-content',
  'number-content',
  'object-content',
  'null-message',
  'empty-message-id',
  'missing-tool-call-id',
  'nan-in-arguments',
  'function-in-arguments',
  'too-deep-arguments',
  'unknown-part-type',
  'dangling-tool-call',
  'orphan-tool-result',
  'duplicate-tool-call-id',
  'late-tool-result',
  'lone-surrogate',
  'circular-message',
  'circular-arguments',
  'bigint-in-arguments',
  'function-in-content',
  'throwing-getter',
  'hole',
  'undefined-message',
];

/** A value nested `depth` levels deep, built without recursion. */
function nested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let level = 0; level < depth; level++) value = { a: value };
  return value;
}

type Loose = Record<string, unknown>;

function isToolCallMessage(message: Message): boolean {
  return (
    message.role === 'assistant' &&
    Array.isArray(message.content) &&
    message.content.some((part) => part.type === 'tool-call')
  );
}

/**
 * Applies `corruption` to a copy of `messages` at the position picked by `pick` (a number in
 * [0, 1)). Returns `undefined` when the history has no place for it (no tool call to break).
 */
function corrupt(
  messages: readonly Message[],
  corruption: Corruption,
  pick: number,
): unknown[] | undefined {
  const copy = structuredClone(messages) as unknown as Loose[];
  const at = (list: readonly unknown[]) => Math.floor(pick * list.length);
  const target = copy[at(copy)]!;
  const callers = copy.flatMap((message, index) =>
    isToolCallMessage(message as unknown as Message) ? [index] : [],
  );
  const caller = callers.length === 0 ? undefined : copy[callers[at(callers)]!]!;
  const firstCall = caller
    ? (caller.content as Loose[]).find((part) => part.type === 'tool-call')!
    : undefined;
  switch (corruption) {
    case 'unknown-role':
      target.role = 'robot';
      return copy;
    case 'missing-role':
      delete target.role;
      return copy;
    case 'null-content':
      target.content = null;
      return copy;
    case 'number-content':
      target.content = 42;
      return copy;
    case 'object-content':
      target.content = { text: 'not a part list' };
      return copy;
    case 'null-message':
      copy[at(copy)] = null as unknown as Loose;
      return copy;
    case 'empty-message-id':
      target.id = '';
      return copy;
    case 'missing-tool-call-id':
      if (!firstCall) return undefined;
      delete firstCall.toolCallId;
      return copy;
    case 'nan-in-arguments':
      if (!firstCall) return undefined;
      firstCall.input = { limit: Number.NaN };
      return copy;
    case 'function-in-arguments':
      if (!firstCall) return undefined;
      firstCall.input = { callback: () => 'not JSON' };
      return copy;
    case 'too-deep-arguments':
      if (!firstCall) return undefined;
      firstCall.input = nested(MAX_MESSAGE_JSON_DEPTH + 50);
      return copy;
    case 'unknown-part-type':
      target.content = [{ type: 'hologram', data: 'x' }];
      return copy;
    case 'dangling-tool-call': {
      if (callers.length === 0) return undefined;
      // Remove every tool message answering the picked caller.
      const index = callers[at(callers)]!;
      let end = index + 1;
      while (end < copy.length && copy[end]!.role === 'tool') end++;
      copy.splice(index + 1, end - index - 1);
      return copy;
    }
    case 'orphan-tool-result': {
      if (!caller) return undefined;
      // Drop the calls, keep the results: every result now answers nothing.
      const parts = (caller.content as Loose[]).filter((part) => part.type !== 'tool-call');
      caller.content = parts.length > 0 ? parts : [{ type: 'text', text: 'calls lost' }];
      return copy;
    }
    case 'duplicate-tool-call-id': {
      if (!caller || !firstCall) return undefined;
      // A second call reusing the first one's id, answered right after the first.
      (caller.content as Loose[]).push({ ...firstCall, input: { again: true } });
      return copy;
    }
    case 'late-tool-result': {
      if (callers.length === 0) return undefined;
      // The caller's results arrive after an intervening assistant message.
      const index = callers[at(callers)]!;
      let end = index + 1;
      while (end < copy.length && copy[end]!.role === 'tool') end++;
      if (end === index + 1) return undefined;
      copy.splice(index + 1, 0, { role: 'assistant', content: 'Working on it.' });
      return copy;
    }
    case 'lone-surrogate':
      if (typeof target.content === 'string') target.content = `${target.content}\uD800broken`;
      else if (Array.isArray(target.content) && target.role === 'user') {
        target.content = [...target.content, { type: 'text', text: 'half \uDC00 pair' }];
      } else target.name = 'name\uD83D';
      return copy;
    case 'circular-message':
      target.self = target;
      return copy;
    case 'circular-arguments': {
      if (!firstCall) return undefined;
      const input: Loose = { query: 'loop' };
      input.self = input;
      firstCall.input = input;
      return copy;
    }
    case 'bigint-in-arguments':
      if (!firstCall) return undefined;
      firstCall.input = { limit: BigInt(10) };
      return copy;
    case 'function-in-content':
      target.content = [{ type: 'text', text: 'click', onClick: () => 'clicked' }];
      return copy;
    case 'throwing-getter':
      Object.defineProperty(target, 'secret', {
        enumerable: true,
        get: () => {
          throw new Error('revoked');
        },
      });
      return copy;
    case 'hole':
      delete copy[at(copy)];
      return copy;
    case 'undefined-message':
      copy[at(copy)] = undefined as unknown as Loose;
      return copy;
  }
}

const corruptedHistory = fc
  .record({
    messages: arbitraryMessages({ maxMessages: 14 }),
    corruption: fc.constantFrom(...corruptions),
    pick: fc.double({ min: 0, max: 0.999, noNaN: true }),
  })
  .map(({ messages, corruption, pick }) => ({
    corruption,
    input: corrupt(messages, corruption, pick),
  }))
  .filter(
    (value): value is { corruption: Corruption; input: unknown[] } => value.input !== undefined,
  );

describe('validateMessages / repairMessages on fuzzed bad input', () => {
  // Protection: the validator's shape checks. Without them a malformed message would be returned
  // as valid (the "never returns" branch) or crash with a TypeError (the "typed" check).
  it('rejects every corruption with InvalidMessageError naming the place, and never crashes', () => {
    fc.assert(
      fc.property(corruptedHistory, ({ input }) => {
        let thrown: unknown;
        try {
          validateMessages(input);
        } catch (error) {
          thrown = error;
        }
        expect(InvalidMessageError.isInstance(thrown)).toBe(true);
        expect((thrown as InvalidMessageError).path).toMatch(/^messages(\[\d+\])?/);
      }),
      { numRuns: 200 },
    );
  });

  // Protection: the documented repairs (lone surrogates, missing results, orphan results,
  // duplicate ids). Without them the repaired history would fail validation or pairing, or the
  // compaction below would break its invariants.
  it('repairs what it documents as repairable, and the repaired history compacts within budget', async () => {
    await fc.assert(
      fc.asyncProperty(
        corruptedHistory,
        fc.integer({ min: 50, max: 600 }),
        async ({ corruption, input }, budgetTokens) => {
          if (!REPAIRABLE.has(corruption)) {
            expect(() => repairMessages(input)).toThrow(InvalidMessageError);
            return;
          }
          const { messages, repairs } = repairMessages(input);
          expect(repairs.length).toBeGreaterThan(0);
          // A repaired history needs no further repair.
          expect(validateMessages(messages)).toEqual(messages);
          try {
            const result = await compact(messages, {
              budgetTokens,
              counter,
              summarizer,
              offloadStore: createInMemoryOffloadStore(),
            });
            expect(
              checkCompactionInvariants(messages, result.messages, { budgetTokens, counter }),
            ).toEqual([]);
          } catch (error) {
            // The only allowed failure: the system prompt and newest question alone do not fit.
            expect(BudgetExceededError.isInstance(error)).toBe(true);
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  // Protection: the validator walks JSON iteratively. A recursive walk (or a bare
  // JSON.stringify) overflows the stack and throws RangeError instead.
  it('gives InvalidMessageError for arguments nested 100,000 levels deep, not a stack overflow', () => {
    const input = [
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 't', input: nested(100_000) }],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 't',
            output: { type: 'text', value: 'ok' },
          },
        ],
      },
    ];
    expect(() => validateMessages(input)).toThrow(InvalidMessageError);
    expect(() => repairMessages(input)).toThrow(InvalidMessageError);
    // Just under the limit is accepted.
    const accepted = [
      input[0],
      {
        role: 'assistant',
        content: [
          {
            type: 'tool-call',
            toolCallId: 'c1',
            toolName: 't',
            input: nested(MAX_MESSAGE_JSON_DEPTH - 2),
          },
        ],
      },
      input[2],
    ];
    expect(validateMessages(accepted)).toHaveLength(3);
  });

  // Protection: repair replaces lone surrogates with U+FFFD instead of passing invalid UTF-16
  // (which a provider's JSON encoder rejects or mangles) through.
  it('repairs invalid UTF-16 everywhere it can hide, and reports each place', () => {
    const input = [
      { role: 'system', content: 'sys \uDFFF' },
      { role: 'user', name: 'bob\uD800', content: [{ type: 'text', text: 'a\uD83D' }] },
      {
        role: 'assistant',
        content: [
          {
            type: 'tool-call',
            toolCallId: 'c\uDC00',
            toolName: 't',
            input: { 'k\uD800': ['v\uDC01'] },
          },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c\uDC00',
            toolName: 't',
            output: { type: 'text', value: 'r\uD800' },
          },
        ],
      },
    ];
    expect(() => validateMessages(input)).toThrow(InvalidMessageError);
    const { messages, repairs } = repairMessages(input);
    expect(
      repairs.filter((repair) => repair.kind === 'lone-surrogate').length,
    ).toBeGreaterThanOrEqual(7);
    const text = JSON.stringify(messages);
    expect((text as unknown as { isWellFormed(): boolean }).isWellFormed()).toBe(true);
    expect(validateMessages(messages)).toEqual(messages);
  });
});

// ---------------------------------------------------------------------------------------------
// createContextManager().prepare

describe('prepare on bad input', () => {
  // Every shape problem: prepare checks each message it has not seen before, so nothing
  // malformed (NaN, a function, an unknown part type, a missing id) is sent or stored.
  const shapeCorruptions = corruptions.filter((corruption) => !REPAIRABLE.has(corruption));

  // Protection: prepare's own checks (the token counter rejects malformed messages with
  // InvalidMessageError). Without them a malformed message reaches the strategies and crashes
  // with a TypeError, or is sent to the provider.
  it('rejects malformed messages with a typed error, never a crash', async () => {
    const manager = createContextManager({ contextWindow: 2_000 });
    await fc.assert(
      fc.asyncProperty(
        arbitraryMessages({ maxMessages: 10 }),
        fc.constantFrom(...shapeCorruptions),
        fc.double({ min: 0, max: 0.999, noNaN: true }),
        async (messages, corruption, pick) => {
          const input = corrupt(messages, corruption, pick);
          if (!input) return;
          const error = await manager.prepare(input as Message[]).then(
            () => undefined,
            (thrown: unknown) => thrown,
          );
          expect(InvalidMessageError.isInstance(error), corruption).toBe(true);
        },
      ),
      { numRuns: 120 },
    );
  });

  // Protection: the budget guard after the strategies. Without it, repaired random histories in
  // a tiny window come back over budget.
  it('keeps every repaired history inside the budget of a small window', async () => {
    await fc.assert(
      fc.asyncProperty(
        corruptedHistory.filter(({ corruption }) => REPAIRABLE.has(corruption)),
        fc.integer({ min: 300, max: 3_000 }),
        async ({ input }, contextWindow) => {
          const { messages } = repairMessages(input);
          const manager = createContextManager({ contextWindow, counter });
          try {
            // prepare repairs the corrupted input itself, by the same rules.
            const prepared = await manager.prepare(input as Message[]);
            expectValidPrompt(prepared.messages, messages, {
              budgetTokens: manager.budget.budgetTokens,
              counter,
            });
          } catch (error) {
            expect(BudgetExceededError.isInstance(error)).toBe(true);
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  // Protection: prepare checks its input before fingerprinting it. Without the check these
  // inputs escape as TypeError ("messages.map") or RangeError (stack overflow).
  // Protection: compact()'s entry check, the same as prepare's. Without it a hole crashed the
  // pipeline with "Cannot read properties of undefined (reading 'role')", and a message that
  // refers to itself was compacted into a prompt JSON.stringify cannot write.
  it('compact rejects malformed messages with a typed error, never a crash', async () => {
    await fc.assert(
      fc.asyncProperty(
        arbitraryMessages({ maxMessages: 10 }),
        fc.constantFrom(...shapeCorruptions),
        fc.double({ min: 0, max: 0.999, noNaN: true }),
        async (messages, corruption, pick) => {
          const input = corrupt(messages, corruption, pick);
          if (!input) return;
          const error = await compact(input as Message[], {
            budgetTokens: 500,
            counter,
            summarizer,
            offloadStore: createInMemoryOffloadStore(),
          }).then(
            () => undefined,
            (thrown: unknown) => thrown,
          );
          expect(InvalidMessageError.isInstance(error), corruption).toBe(true);
          expect((error as InvalidMessageError).path, corruption).toMatch(/^messages\[\d+\]/);
        },
      ),
      { numRuns: 120 },
    );
  });

  it('rejects a non-array with a typed error', async () => {
    const manager = createContextManager({ contextWindow: 2_000 });
    const error = await manager.prepare('hello' as unknown as Message[]).catch((thrown) => thrown);
    expect(CtxmemError.isInstance(error)).toBe(true);
  });

  it('rejects a null message with a typed error', async () => {
    const manager = createContextManager({ contextWindow: 2_000 });
    const error = await manager
      .prepare([{ role: 'user', content: 'hi' }, null] as unknown as Message[])
      .catch((thrown) => thrown);
    expect(CtxmemError.isInstance(error)).toBe(true);
  });

  it('rejects tool arguments nested past the depth limit with a typed error', async () => {
    const manager = createContextManager({ contextWindow: 2_000 });
    const messages = [
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 't', input: nested(100_000) }],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 't',
            output: { type: 'text', value: 'ok' },
          },
        ],
      },
      { role: 'user', content: 'next' },
    ] as Message[];
    const error = await manager.prepare(messages).catch((thrown) => thrown);
    expect(CtxmemError.isInstance(error)).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------
// Huge messages

describe('10 MB messages', () => {
  // Ten megabytes of ordinary words (a long pasted log); counting costs about a second.
  const tenMegabytes = filler(7, 1_750_000).slice(0, 10 * 1024 * 1024);

  // Protection: offloading of large payloads and the reloadable original. Without the offload the
  // prompt is over budget; without the store the content is lost.
  it('offloads a 10 MB tool result out of the prompt and gives it back byte for byte', async () => {
    expect(tenMegabytes.length).toBe(10 * 1024 * 1024);
    const offloadStore = createInMemoryOffloadStore();
    const manager = createContextManager({ contextWindow: 8_000, counter, offloadStore });
    const history: Message[] = [
      { role: 'system', content: 'You are a log analyst.' },
      { role: 'user', content: 'Read the log.' },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'log', toolName: 'read_log', input: {} }],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'log',
            toolName: 'read_log',
            output: { type: 'text', value: tenMegabytes },
          },
        ],
      },
      { role: 'assistant', content: 'The log is long.' },
      { role: 'user', content: 'What failed?' },
    ];
    expect(validateMessages(history)).toEqual(history);
    const prepared = await manager.prepare(history);
    expectValidPrompt(prepared.messages, history, {
      budgetTokens: manager.budget.budgetTokens,
      counter,
    });
    const preview = prepared.messages.find((message) => message.ctxmem?.offloadIds?.length);
    expect(preview).toBeDefined();
    const id = preview!.ctxmem!.offloadIds![0]!;
    const record = await offloadStore.get({}, id);
    expect(messageText(record.message)).toBe(tenMegabytes);
  });

  // Protection: the newest user message is never cut; the budget guard reports instead of
  // sending an over-budget prompt.
  it('refuses a 10 MB newest user message with BudgetExceededError instead of cutting it', async () => {
    const manager = createContextManager({ contextWindow: 8_000, counter });
    const error = await manager
      .prepare([{ role: 'user', content: tenMegabytes }])
      .catch((thrown) => thrown);
    expect(BudgetExceededError.isInstance(error)).toBe(true);
    expect((error as BudgetExceededError).requiredTokens).toBeGreaterThan(
      manager.budget.budgetTokens,
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Budgets and models

describe('nonsense budgets and unknown models', () => {
  const badNumbers = [Number.NaN, -1, 0, 0.5, 1.5, Number.POSITIVE_INFINITY, -Infinity];

  // Protection: argument checks of compact. Without them NaN comparisons are always false, so a
  // NaN budget would "fit" anything and an over-budget prompt would be sent.
  it('compact rejects every non-positive or non-integer budget', async () => {
    for (const budgetTokens of [...badNumbers, '100' as unknown as number]) {
      await expect(
        compact([{ role: 'user', content: 'hi' }], {
          budgetTokens,
          counter,
          summarizer,
          offloadStore: createInMemoryOffloadStore(),
        }),
      ).rejects.toSatisfy(InvalidArgumentError.isInstance);
    }
    await expect(
      compact([{ role: 'user', content: 'hi' }], {
        budgetTokens: 100,
        targetTokens: 200,
        counter,
        summarizer,
        offloadStore: createInMemoryOffloadStore(),
      }),
    ).rejects.toSatisfy(InvalidArgumentError.isInstance);
  });

  // Protection: createContextManager's budget checks.
  it('createContextManager rejects bad windows and ratios', () => {
    for (const contextWindow of badNumbers) {
      expect(() => createContextManager({ contextWindow })).toThrow(InvalidArgumentError);
    }
    for (const threshold of [Number.NaN, -0.1, 0, 1.5]) {
      expect(() => createContextManager({ contextWindow: 10_000, threshold })).toThrow(
        InvalidArgumentError,
      );
    }
    expect(() =>
      createContextManager({ contextWindow: 10_000, threshold: 0.5, retainedRatio: 0.9 }),
    ).toThrow(InvalidArgumentError);
  });

  // Protection: no guessed window for an unknown model (a guess too large would overflow).
  it('needs an explicit window for an unknown model id, and works once given one', async () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 30 }).map((id) => `zz-private-${id}`),
        (model) => {
          expect(() => createContextManager({ model })).toThrow(InvalidArgumentError);
        },
      ),
      { numRuns: 100 },
    );
    const manager = createContextManager({ model: 'zz-private-model', contextWindow: 4_000 });
    const prepared = await manager.prepare([{ role: 'user', content: 'hello' }]);
    expect(prepared.messages).toEqual([{ role: 'user', content: 'hello' }]);
  });
});

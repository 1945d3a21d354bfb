import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AssistantMessage, Message, ToolMessage, UserMessage } from '../contracts/index.js';
import { InvalidMessageError } from '../errors/index.js';
import { arbitraryMessages } from '../test/arbitraries/index.js';
import { brokenHistories } from '../test/broken-histories.js';
import {
  checkToolPairing,
  MAX_MESSAGE_JSON_DEPTH,
  MISSING_TOOL_RESULT_TEXT,
  repairMessages,
  validateMessages,
} from './index.js';
import { thrownInvalidMessage, withHole } from './invalid-message.test-support.js';

const call = (toolCallId: string, toolName = 'search', input: unknown = {}) => ({
  type: 'tool-call' as const,
  toolCallId,
  toolName,
  input,
});
const result = (toolCallId: string, value = 'ok', toolName = 'search') => ({
  type: 'tool-result' as const,
  toolCallId,
  toolName,
  output: { type: 'text' as const, value },
});
const assistantCalls = (...ids: string[]): AssistantMessage => ({
  role: 'assistant',
  content: ids.map((id) => call(id)),
});
const toolResults = (...ids: string[]): ToolMessage => ({
  role: 'tool',
  content: ids.map((id) => result(id)),
});
const user = (content = 'hi'): UserMessage => ({ role: 'user', content });

describe('validateMessages on valid histories', () => {
  it('accepts every generated history and returns the same message objects', () => {
    fc.assert(
      fc.property(
        arbitraryMessages({ withImages: true, withCjk: true, withHugeOutputs: true }),
        (messages) => {
          const validated = validateMessages(messages);
          expect(validated).toHaveLength(messages.length);
          validated.forEach((message, index) => {
            expect(message).toBe(messages[index]);
          });
          expect(repairMessages(messages).repairs).toEqual([]);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('accepts provider-executed calls and calls waiting for approval without a result', () => {
    const messages: Message[] = [
      user(),
      {
        role: 'assistant',
        content: [
          { ...call('web', 'web_search'), providerExecuted: true },
          call('rm', 'delete_file'),
          { type: 'tool-approval-request', approvalId: 'ap1', toolCallId: 'rm' },
        ],
      },
      {
        role: 'tool',
        content: [{ type: 'tool-approval-response', approvalId: 'ap1', approved: false }],
      },
    ];
    expect(validateMessages(messages)).toEqual(messages);
  });

  it('accepts custom parts as the AI SDK returns them and keeps them as they are', () => {
    // A streamed @ai-sdk/anthropic answer starts with this part (AI SDK 7 `CustomPart`).
    const custom = {
      type: 'custom' as const,
      kind: 'anthropic.message_start',
      providerOptions: { anthropic: { id: 'msg_1', usage: { input_tokens: 12 } } },
    };
    const messages: Message[] = [
      user(),
      { role: 'assistant', content: [custom, call('a')] },
      toolResults('a'),
      { role: 'assistant', content: [{ type: 'custom', kind: 'openai.compaction' }] },
    ];
    const validated = validateMessages(messages);
    expect(validated).toEqual(messages);
    expect(validated[1]).toBe(messages[1]);
  });

  it('accepts a history still waiting for its tool results when pairing is not checked', () => {
    const messages = [user(), assistantCalls('a')];
    expect(() => validateMessages(messages)).toThrow(InvalidMessageError);
    expect(validateMessages(messages, { checkToolPairing: false })).toEqual(messages);
  });

  it('accepts binary data, URLs and 10 MB strings', () => {
    const huge = 'y'.repeat(10_000_000);
    const messages: Message[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: huge },
          { type: 'image', image: new URL('https://example.com/a.png') },
          { type: 'file', data: new Uint8Array([1, 2]), mediaType: 'application/pdf' },
        ],
      },
    ];
    expect(validateMessages(messages)[0]).toBe(messages[0]);
  });
});

describe('validateMessages errors', () => {
  const deep = (levels: number) => {
    let value: unknown = 1;
    for (let level = 0; level < levels; level++) value = { a: value };
    return value;
  };
  const cyclic: Record<string, unknown> = { name: 'loop' };
  cyclic.self = cyclic;

  it.each<[string, unknown, string]>([
    ['input that is not an array', { role: 'user' }, 'messages'],
    ['a message that is not an object', [user(), 'hello'], 'messages[1]'],
    ['a missing role', [{ content: 'x' }], 'messages[0].role'],
    ['an unknown role', [user(), { role: 'human', content: 'x' }], 'messages[1].role'],
    ['null content on a user message', [{ role: 'user', content: null }], 'messages[0].content'],
    [
      'null content on a system message',
      [{ role: 'system', content: null }],
      'messages[0].content',
    ],
    [
      'parts on a system message',
      [{ role: 'system', content: [{ type: 'text', text: 'x' }] }],
      'messages[0].content',
    ],
    ['string content on a tool message', [{ role: 'tool', content: 'x' }], 'messages[0].content'],
    [
      'a number as text',
      [{ role: 'user', content: [{ type: 'text', text: 42 }] }],
      'messages[0].content[0].text',
    ],
    ['a part that is not an object', [{ role: 'user', content: ['x'] }], 'messages[0].content[0]'],
    [
      'a part without type',
      [{ role: 'user', content: [{ text: 'x' }] }],
      'messages[0].content[0].type',
    ],
    [
      'an unknown part type',
      [{ role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'video' }] }],
      'messages[0].content[1]',
    ],
    [
      'a custom part without a kind',
      [user(), { role: 'assistant', content: [{ type: 'custom' }] }],
      'messages[1].content[0].kind',
    ],
    [
      'a custom part whose kind names no provider',
      [user(), { role: 'assistant', content: [{ type: 'custom', kind: 'message_start' }] }],
      'messages[1].content[0].kind',
    ],
    [
      'a custom part in a user message',
      [{ role: 'user', content: [{ type: 'custom', kind: 'anthropic.message_start' }] }],
      'messages[0].content[0]',
    ],
    [
      'a part the role cannot hold',
      [{ role: 'user', content: [call('a')] }],
      'messages[0].content[0]',
    ],
    [
      'an image that is a number',
      [{ role: 'user', content: [{ type: 'image', image: 7 }] }],
      'messages[0].content[0].image',
    ],
    [
      'a file without media type',
      [{ role: 'user', content: [{ type: 'file', data: 'AA' }] }],
      'messages[0].content[0].mediaType',
    ],
    [
      'a missing tool-call id',
      [{ role: 'assistant', content: [{ type: 'tool-call', toolName: 'f', input: {} }] }],
      'messages[0].content[0].toolCallId',
    ],
    [
      'an empty tool-call id',
      [{ role: 'assistant', content: [call('')] }],
      'messages[0].content[0].toolCallId',
    ],
    [
      'an empty tool name',
      [{ role: 'assistant', content: [call('a', '')] }],
      'messages[0].content[0].toolName',
    ],
    [
      'a tool call without input',
      [{ role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'a', toolName: 'f' }] }],
      'messages[0].content[0].input',
    ],
    [
      'NaN in tool input',
      [{ role: 'assistant', content: [call('a', 'f', { a: [1, 2, Number.NaN] })] }],
      'messages[0].content[0].input.a[2]',
    ],
    [
      'Infinity in a JSON output',
      [
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'a',
              toolName: 'f',
              output: { type: 'json', value: { 'odd key': Number.POSITIVE_INFINITY } },
            },
          ],
        },
      ],
      'messages[0].content[0].output.value["odd key"]',
    ],
    [
      'a function in tool input',
      [{ role: 'assistant', content: [call('a', 'f', { run: () => 1 })] }],
      'messages[0].content[0].input.run',
    ],
    [
      'a Date in tool input',
      [{ role: 'assistant', content: [call('a', 'f', { at: new Date(0) })] }],
      'messages[0].content[0].input.at',
    ],
    [
      'a cycle in tool input',
      [{ role: 'assistant', content: [call('a', 'f', cyclic)] }],
      'messages[0].content[0].input.self',
    ],
    [
      'undefined inside an array',
      [{ role: 'assistant', content: [call('a', 'f', [1, undefined])] }],
      'messages[0].content[0].input[1]',
    ],
    [
      'an unknown output type',
      [
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'a',
              toolName: 'f',
              output: { type: 'xml', value: '' },
            },
          ],
        },
      ],
      'messages[0].content[0].output.type',
    ],
    [
      'a text output with a number',
      [
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'a',
              toolName: 'f',
              output: { type: 'text', value: 1 },
            },
          ],
        },
      ],
      'messages[0].content[0].output.value',
    ],
    [
      'a media item without data',
      [
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'a',
              toolName: 'f',
              output: { type: 'content', value: [{ type: 'media', mediaType: 'image/png' }] },
            },
          ],
        },
      ],
      'messages[0].content[0].output.value[0].data',
    ],
    [
      'an approval answer that is not a boolean',
      [
        {
          role: 'tool',
          content: [{ type: 'tool-approval-response', approvalId: 'x', approved: 'yes' }],
        },
      ],
      'messages[0].content[0].approved',
    ],
    [
      'provider options that are not objects',
      [{ role: 'user', content: 'x', providerOptions: { openai: 'low' } }],
      'messages[0].providerOptions.openai',
    ],
    ['an empty message id', [{ role: 'user', content: 'x', id: '' }], 'messages[0].id'],
    [
      'an unknown ctxmem kind',
      [{ role: 'user', content: 'x', ctxmem: { kind: 'magic' } }],
      'messages[0].ctxmem.kind',
    ],
    [
      'a lone surrogate',
      [user(), { role: 'user', content: [{ type: 'text', text: 'bad \uD800 text' }] }],
      'messages[1].content[0].text',
    ],
    [
      'a lone surrogate in a JSON key',
      [{ role: 'assistant', content: [call('a', 'f', { 'k\uDC00': 1 })] }],
      'messages[0].content[0].input["k\\udc00"]',
    ],
    [
      'a tool call without a result',
      [user(), assistantCalls('a', 'b'), toolResults('a')],
      'messages[1].content[1]',
    ],
    ['a tool result without a call', [user(), toolResults('z')], 'messages[1].content[0]'],
    [
      'a result that comes too late',
      [user(), assistantCalls('a'), user(), toolResults('a')],
      'messages[1].content[0]',
    ],
    [
      'a duplicate tool-call id',
      [user(), assistantCalls('a'), toolResults('a'), assistantCalls('a'), toolResults('a')],
      'messages[3].content[0].toolCallId',
    ],
  ])('rejects %s with its path', (_case, input, path) => {
    const error = thrownInvalidMessage(() => validateMessages(input));
    expect(error.path).toBe(path);
    expect(error.message.startsWith(`${path}: `)).toBe(true);
  });

  it('rejects 10,000-deep tool input with a typed error instead of a stack overflow', () => {
    const error = thrownInvalidMessage(() =>
      validateMessages([{ role: 'assistant', content: [call('a', 'f', deep(10_000))] }]),
    );
    expect(error.path.startsWith('messages[0].content[0].input.a.a')).toBe(true);
    expect(error.message).toContain(`${MAX_MESSAGE_JSON_DEPTH} levels`);
  });

  it('accepts input exactly at the depth limit', () => {
    const messages = [
      user(),
      { role: 'assistant', content: [call('a', 'f', deep(MAX_MESSAGE_JSON_DEPTH - 1))] },
      toolResults('a'),
    ];
    expect(() => validateMessages(messages)).not.toThrow();
  });

  it('still throws for shape errors when repairing', () => {
    expect(() => validateMessages([{ role: 'user', content: null }], { repair: true })).toThrow(
      InvalidMessageError,
    );
  });
});

describe('validateMessages on values that cannot be sent', () => {
  it.each(brokenHistories().map((broken) => [broken.name, broken] as const))(
    'rejects %s, naming the path, with and without repair',
    (_name, broken) => {
      for (const action of [
        () => validateMessages(broken.messages),
        () => repairMessages(broken.messages),
        () => validateMessages(broken.messages, { checkToolPairing: false }),
      ]) {
        const error = thrownInvalidMessage(action);
        expect(error.path).toBe(broken.path);
        expect(error.message.startsWith(`${broken.path}: `)).toBe(true);
        expect(error.message).toContain(broken.problem);
      }
    },
  );

  it.each<[string, () => unknown[], string]>([
    [
      'a part that refers to its message',
      () => {
        const message: Record<string, unknown> = { role: 'user' };
        message.content = [{ type: 'text', text: 'hi', message }];
        return [message];
      },
      'messages[0].content[0].message: circular reference',
    ],
    [
      'a tool input that refers to its part',
      () => {
        const part: Record<string, unknown> = { type: 'tool-call', toolCallId: 'a', toolName: 'f' };
        part.input = { part };
        return [{ role: 'assistant', content: [part] }];
      },
      'messages[0].content[0].input.part: circular reference',
    ],
    [
      'a Date in a field ctxmem does not know',
      () => [{ role: 'user', content: 'hi', createdAt: new Date(0) }],
      'messages[0].createdAt: a Date is not a JSON value',
    ],
    [
      'a cycle in a tool output',
      () => {
        const value: Record<string, unknown> = {};
        value.again = value;
        return [
          {
            role: 'tool',
            content: [
              {
                type: 'tool-result',
                toolCallId: 'a',
                toolName: 'f',
                output: { type: 'json', value },
              },
            ],
          },
        ];
      },
      'messages[0].content[0].output.value.again: circular reference',
    ],
    [
      'a hole in the content parts',
      () => [
        {
          role: 'user',
          content: withHole([{ type: 'text', text: 'a' }], [{ type: 'text', text: 'b' }]),
        },
      ],
      'messages[0].content[1]: expected a content part object, got an empty slot (the array has a hole)',
    ],
    [
      'a hole in ctxmem metadata',
      () => [
        {
          role: 'system',
          content: 's',
          ctxmem: { kind: 'summary', replaces: withHole(['a'], ['b']) },
        },
      ],
      'messages[0].ctxmem.replaces[1]: expected a string, got an empty slot (the array has a hole)',
    ],
    [
      'a content getter that throws',
      () => [
        Object.defineProperty({ role: 'user' }, 'content', {
          enumerable: false,
          get: () => {
            throw new Error('gone');
          },
        }),
      ],
      'messages[0]: reading it threw (Error: gone)',
    ],
  ])('rejects %s', (_case, make, message) => {
    expect(thrownInvalidMessage(() => validateMessages(make())).message).toBe(message);
  });

  it('accepts fields it does not know when they are JSON, and shared (not circular) objects', () => {
    const options = { openai: { user: 'u1' } };
    const messages = [
      {
        role: 'user',
        content: 'hi',
        createdAt: '2025-01-01',
        tags: ['a'],
        providerOptions: options,
      },
      {
        role: 'assistant',
        content: [{ type: 'text', text: 'hello', providerOptions: options, meta: { n: 1 } }],
        providerOptions: options,
      },
    ];
    const validated = validateMessages(messages);
    expect(validated[0]).toBe(messages[0]);
    expect(validated[1]).toBe(messages[1]);
  });
});

describe('repairMessages', () => {
  it('inserts a synthetic error result right after the tool messages of an unanswered call', () => {
    const messages: Message[] = [
      user(),
      assistantCalls('a', 'b'),
      toolResults('a'),
      { role: 'assistant', content: 'done' },
    ];
    const { messages: repaired, repairs } = repairMessages(messages);
    expect(repaired).toEqual([
      messages[0],
      messages[1],
      messages[2],
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'b',
            toolName: 'search',
            output: { type: 'error-text', value: MISSING_TOOL_RESULT_TEXT },
          },
        ],
      },
      messages[3],
    ]);
    expect(repairs).toEqual([
      {
        kind: 'missing-tool-result',
        path: 'messages[1].content[1]',
        toolCallId: 'b',
        toolName: 'search',
      },
    ]);
    expect(MISSING_TOOL_RESULT_TEXT).toBe('No result was recorded for this tool call.');
  });

  it('keeps an orphan result as a user message after the tool messages', () => {
    const messages: Message[] = [
      user(),
      assistantCalls('a'),
      { role: 'tool', content: [result('a'), result('ghost', 'the data', 'fetch')] },
      { role: 'tool', content: [result('ghost2', 'more')] },
      { role: 'assistant', content: 'ok' },
    ];
    const { messages: repaired, repairs } = repairMessages(messages);
    expect(repaired).toHaveLength(5);
    expect(repaired[2]).toEqual({ role: 'tool', content: [result('a')] });
    expect(repaired[3]!.role).toBe('user');
    const text = (repaired[3] as UserMessage).content as Array<{ text: string }>;
    expect(text[0]!.text).toContain('"fetch"');
    expect(text[0]!.text).toContain('"ghost"');
    expect(text[0]!.text).toContain('the data');
    expect(text[1]!.text).toContain('more');
    expect(repaired[4]).toBe(messages[4]);
    expect(repairs.map((repair) => [repair.kind, repair.path])).toEqual([
      ['orphan-tool-result', 'messages[2].content[1]'],
      ['orphan-tool-result', 'messages[3].content[0]'],
    ]);
    expect(() => validateMessages(repaired)).not.toThrow();
  });

  it('keeps images of an orphan result as image parts', () => {
    const { messages: repaired } = repairMessages([
      user(),
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'x',
            toolName: 'screenshot',
            output: {
              type: 'content',
              value: [
                { type: 'text', text: 'screen' },
                { type: 'media', data: 'AAAA', mediaType: 'image/png' },
              ],
            },
          },
        ],
      },
    ]);
    expect(repaired[1]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: expect.stringContaining('screen') },
        { type: 'image', image: 'AAAA', mediaType: 'image/png' },
      ],
    });
  });

  it('moves a late result up to its call instead of inventing one and orphaning the real one', () => {
    const messages: Message[] = [
      user(),
      assistantCalls('a', 'b'),
      toolResults('a'),
      { role: 'assistant', content: 'Still waiting for b.' },
      user('and?'),
      { role: 'tool', content: [result('b', 'late answer')] },
    ];
    const { messages: repaired, repairs } = repairMessages(messages);
    expect(repairs).toEqual([
      { kind: 'late-tool-result', path: 'messages[5].content[0]', toolCallId: 'b' },
    ]);
    expect(repaired.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'tool',
      'assistant',
      'user',
    ]);
    expect((repaired[3] as ToolMessage).content).toEqual([result('b', 'late answer')]);
    expect(() => validateMessages(repaired)).not.toThrow();
    expect(checkToolPairing(messages)).toEqual([
      { kind: 'late-result', toolCallId: 'b', index: 5 },
    ]);
    expect(checkToolPairing(repaired)).toEqual([]);
  });

  it('rejects a late result without repair, naming the call and where its result is', () => {
    const messages: Message[] = [
      user(),
      assistantCalls('a'),
      { role: 'assistant', content: 'meanwhile' },
      toolResults('a'),
    ];
    expect(() => validateMessages(messages)).toThrow(
      expect.objectContaining({
        name: 'CtxmemInvalidMessageError',
        path: 'messages[1].content[0]',
        message: expect.stringContaining('answered only at messages[3].content[0]'),
      }),
    );
  });

  it('leaves a result to the call of its own step when an id is reused later', () => {
    const messages: Message[] = [
      user(),
      assistantCalls('a'),
      { role: 'assistant', content: 'no result yet' },
      assistantCalls('a'),
      toolResults('a'),
    ];
    const { repairs } = repairMessages(messages);
    expect(repairs.map((repair) => repair.kind)).toEqual([
      'missing-tool-result',
      'duplicate-tool-call-id',
    ]);
  });

  it('renames a duplicate call id together with its own results', () => {
    const messages: Message[] = [
      user(),
      assistantCalls('a'),
      toolResults('a'),
      assistantCalls('a', 'a-2'),
      toolResults('a', 'a-2'),
    ];
    const { messages: repaired, repairs } = repairMessages(messages);
    expect(repairs).toEqual([
      {
        kind: 'duplicate-tool-call-id',
        path: 'messages[3].content[0].toolCallId',
        toolCallId: 'a',
        replacementId: 'a-3',
      },
    ]);
    expect((repaired[3] as AssistantMessage).content).toMatchObject([
      { toolCallId: 'a-3' },
      { toolCallId: 'a-2' },
    ]);
    expect((repaired[4] as ToolMessage).content).toMatchObject([
      { toolCallId: 'a-3' },
      { toolCallId: 'a-2' },
    ]);
    expect(repaired[1]).toBe(messages[1]);
    expect(() => validateMessages(repaired)).not.toThrow();
  });

  it('pairs two calls sharing an id in one message with their results in order', () => {
    const { messages: repaired } = repairMessages([
      user(),
      assistantCalls('a', 'a'),
      { role: 'tool', content: [result('a', 'first'), result('a', 'second')] },
    ]);
    expect((repaired[2] as ToolMessage).content).toMatchObject([
      { toolCallId: 'a', output: { value: 'first' } },
      { toolCallId: 'a-2', output: { value: 'second' } },
    ]);
  });

  it('replaces lone surrogates with U+FFFD everywhere and says where', () => {
    const { messages: repaired, repairs } = repairMessages([
      { role: 'user', content: 'a\uD800b', name: '\uDC00' },
      { role: 'assistant', content: [call('c', 'f', { 'k\uD800': ['v\uDFFF'] })] },
      toolResults('c'),
    ]);
    expect(repaired[0]).toEqual({ role: 'user', content: 'a\uFFFDb', name: '\uFFFD' });
    expect((repaired[1] as AssistantMessage).content).toMatchObject([
      { input: { 'k\uFFFD': ['v\uFFFD'] } },
    ]);
    expect(repairs).toEqual([
      { kind: 'lone-surrogate', path: 'messages[0].name' },
      { kind: 'lone-surrogate', path: 'messages[0].content' },
      // Key paths are JSON-escaped, so the path itself stays valid UTF-16.
      { kind: 'lone-surrogate', path: 'messages[1].content[0].input["k\\ud800"]' },
      { kind: 'lone-surrogate', path: 'messages[1].content[0].input["k\\ud800"][0]' },
    ]);
  });

  it('returns the input unchanged when validateMessages repairs nothing', () => {
    const messages = [user(), assistantCalls('a'), toolResults('a')];
    expect(validateMessages(messages, { repair: true })).toEqual(messages);
  });

  it('turns any broken generated history into one that validates', () => {
    const breakage = fc.constantFrom(
      'drop-tool',
      'duplicate-id',
      'orphan',
      'surrogate',
      'move-result',
    );
    fc.assert(
      fc.property(
        arbitraryMessages({ maxMessages: 20 }),
        fc.array(fc.tuple(breakage, fc.nat()), { minLength: 1, maxLength: 4 }),
        (messages, breaks) => {
          let broken: Message[] = messages;
          for (const [kind, seed] of breaks) broken = breakHistory(broken, kind, seed);
          const { messages: repaired } = repairMessages(broken);
          expect(() => validateMessages(repaired)).not.toThrow();
          // Repairs lose nothing: every result is still a result (maybe moved up to its call) or
          // kept as text naming its call id, and every text of the broken history is still there.
          const resultsOf = (list: readonly Message[]) =>
            list.flatMap((message) =>
              message.role === 'tool'
                ? message.content.flatMap((part) =>
                    part.type === 'tool-result' ? [JSON.stringify(part.output)] : [],
                  )
                : [],
            );
          const kept = new Set(resultsOf(repaired));
          const repairedJson = JSON.stringify(repaired);
          for (const message of broken) {
            if (message.role !== 'tool') continue;
            for (const part of message.content) {
              if (part.type !== 'tool-result') continue;
              const output = JSON.stringify(part.output);
              if (!kept.has(output)) {
                expect(repairedJson).toContain(
                  JSON.stringify(`(call id ${JSON.stringify(part.toolCallId)})`).slice(1, -1),
                );
              }
            }
          }
          const texts = (list: readonly Message[]) =>
            list.flatMap((message) =>
              typeof message.content === 'string' ? [message.content] : [],
            );
          const normalize = (text: string) => text.replace(/[\uD800-\uDFFF]/g, '\uFFFD');
          expect(texts(repaired).map(normalize).sort()).toEqual(
            expect.arrayContaining(texts(broken).map(normalize).sort()),
          );
        },
      ),
      { numRuns: 150 },
    );
  });
});

function breakHistory(messages: Message[], kind: string, seed: number): Message[] {
  const copy = messages.slice();
  const at = (indexes: number[]) => indexes[seed % Math.max(indexes.length, 1)];
  const indexesOf = (role: Message['role']) =>
    copy.flatMap((message, index) => (message.role === role ? [index] : []));
  switch (kind) {
    case 'drop-tool': {
      const index = at(indexesOf('tool'));
      if (index !== undefined) copy.splice(index, 1);
      return copy;
    }
    case 'duplicate-id': {
      const callers = copy.flatMap((message, index) =>
        message.role === 'assistant' &&
        typeof message.content !== 'string' &&
        message.content.some((part) => part.type === 'tool-call')
          ? [index]
          : [],
      );
      if (callers.length < 2) return copy;
      const first = copy[callers[0]!] as AssistantMessage;
      const id = (first.content as Array<{ type: string; toolCallId?: string }>).find(
        (part) => part.type === 'tool-call',
      )!.toolCallId!;
      const target = callers[1 + (seed % (callers.length - 1))]!;
      const message = copy[target] as AssistantMessage;
      copy[target] = {
        ...message,
        content: (message.content as AssistantMessage['content'] & unknown[]).map((part, index) =>
          index ===
          (message.content as unknown[]).findIndex(
            (item) => (item as { type: string }).type === 'tool-call',
          )
            ? { ...(part as object), toolCallId: id }
            : part,
        ) as AssistantMessage['content'],
      };
      return copy;
    }
    case 'orphan':
      copy.splice(seed % (copy.length + 1), 0, toolResults(`orphan_${seed}`));
      return copy;
    case 'surrogate':
      copy.splice(seed % (copy.length + 1), 0, user(`broken \uD83D text ${seed}`));
      return copy;
    case 'move-result': {
      const index = at(indexesOf('tool'));
      if (index === undefined) return copy;
      const [moved] = copy.splice(index, 1);
      copy.push(moved!);
      return copy;
    }
  }
  return copy;
}

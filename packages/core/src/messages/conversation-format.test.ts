import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../contracts/index.js';
import { UnsupportedFormatError } from '../errors/index.js';
import { arbitraryModelMessages, arbitraryOpenAIChatMessages } from '../test/arbitraries/index.js';
import {
  detectFormat,
  fromAnthropicMessages,
  fromModelMessages,
  fromOpenAIChat,
  fromOpenAIResponses,
  parseConversation,
  serializeConversation,
} from './index.js';
import { thrownInvalidMessage } from './invalid-message.test-support.js';

const example = (name: string) =>
  readFileSync(new URL(`../../../../examples/conversations/${name}`, import.meta.url), 'utf8');

function unsupported(action: () => unknown): UnsupportedFormatError {
  try {
    action();
  } catch (error) {
    if (UnsupportedFormatError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected an UnsupportedFormatError');
}

describe('detectFormat', () => {
  it('recognises generated histories of either format, bare or in an envelope', () => {
    fc.assert(
      fc.property(arbitraryOpenAIChatMessages(), arbitraryModelMessages(), (openai, aiSdk) => {
        expect(detectFormat(openai)).toBe('openai-chat');
        expect(detectFormat({ model: 'gpt-4o', messages: openai })).toBe('openai-chat');
        // Plain string conversations are identical in both formats; anything richer is AI SDK.
        const richer = aiSdk.some(
          (message) => typeof message.content !== 'string' || message.providerOptions !== undefined,
        );
        expect(detectFormat(aiSdk)).toBe(richer ? 'ai-sdk' : 'openai-chat');
      }),
      { numRuns: 100 },
    );
  });

  it('tells the formats apart by their distinctive shapes', () => {
    expect(detectFormat([{ role: 'developer', content: 'x' }])).toBe('openai-chat');
    expect(detectFormat([{ role: 'assistant', content: null, tool_calls: [] }])).toBe(
      'openai-chat',
    );
    expect(
      detectFormat([{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'u' } }] }]),
    ).toBe('openai-chat');
    expect(
      detectFormat([{ role: 'user', content: [{ type: 'file', file: { file_id: 'f' } }] }]),
    ).toBe('openai-chat');
    expect(detectFormat([{ role: 'user', content: [{ type: 'image', image: 'AA' }] }])).toBe(
      'ai-sdk',
    );
    expect(
      detectFormat([{ role: 'user', content: [{ type: 'file', data: 'AA', mediaType: 'x/y' }] }]),
    ).toBe('ai-sdk');
    expect(detectFormat([{ role: 'user', content: 'x', providerOptions: {} }])).toBe('ai-sdk');
    expect(detectFormat([{ role: 'user', content: 'plain' }])).toBe('openai-chat');
    expect(detectFormat([])).toBe('openai-chat');
  });

  it.each<[string, unknown]>([
    [
      'Anthropic tool use',
      [{ role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'f', input: {} }] }],
    ],
    [
      'Anthropic images',
      [{ role: 'user', content: [{ type: 'image', source: { type: 'base64' } }] }],
    ],
    ['a top-level system', { system: 'S', messages: [{ role: 'user', content: 'hi' }] }],
    ['a claude model', { model: 'claude-3-5-haiku', messages: [{ role: 'user', content: 'hi' }] }],
  ])('recognises Anthropic Messages by %s', (_case, input) => {
    expect(detectFormat(input)).toBe('anthropic');
  });

  it('reads JSON text', () => {
    expect(detectFormat('[{"role":"tool","tool_call_id":"a","content":"x"}]')).toBe('openai-chat');
  });

  it.each<[string, unknown, string]>([
    ['a number', 42, 'got a number'],
    ['an object without messages', { model: 'x', prompt: 'hi' }, 'keys "model", "prompt"'],
    ['messages that are not an array', { messages: 'hi' }, 'messages is a string'],
    ['invalid JSON text', '{"messages": [', 'not valid JSON'],
    ['a message that is a string', ['hello'], 'messages[0] is a string'],
    ['LangChain messages', [{ type: 'human', data: { content: 'hi' } }], 'LangChain'],
    ['serialized LangChain messages', [{ lc: 1, kwargs: {} }], 'LangChain'],
    ['Gemini contents', [{ role: 'model', parts: [{ text: 'hi' }] }], 'Gemini'],
    [
      'AI SDK UI messages',
      [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
      'UI messages',
    ],
    [
      'a mix of Anthropic and OpenAI shapes',
      [
        { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'f', input: {} }] },
        { role: 'tool', tool_call_id: 'a', content: 'x' },
      ],
      'mixes Anthropic',
    ],
    ['an unknown role', [{ role: 'human', content: 'x' }], 'unknown role "human"'],
    [
      'a mix of both formats',
      [
        { role: 'assistant', content: null, tool_calls: [] },
        {
          role: 'assistant',
          content: [{ type: 'tool-call', toolCallId: 'a', toolName: 'f', input: {} }],
        },
      ],
      'messages[0]: tool_calls',
    ],
  ])('rejects %s and names what it saw', (_case, input, seen) => {
    expect(unsupported(() => detectFormat(input)).message).toContain(seen);
  });
});

describe('parseConversation / serializeConversation', () => {
  it.each(['agent-session.json', 'ai-sdk-chat.json'])(
    'writes %s back exactly as it was read',
    (name) => {
      const json = JSON.parse(example(name));
      const parsed = parseConversation(json);
      expect(parsed.messages.length).toBeGreaterThan(0);
      expect(serializeConversation(parsed.messages, parsed.format, parsed.envelope)).toStrictEqual(
        json,
      );
    },
  );

  it('keeps the envelope of a request body, in its key order', () => {
    const body = {
      model: 'gpt-4o',
      messages: [
        { role: 'developer', content: 'be brief' },
        { role: 'user', content: 'hi' },
      ],
      tools: [{ type: 'function', function: { name: 'f', parameters: {} } }],
      temperature: 0,
    };
    const parsed = parseConversation(JSON.stringify(body));
    expect(parsed.format).toBe('openai-chat');
    expect(parsed.envelope).toEqual({ ...body, messages: [] });
    expect(parsed.messages[0]).toMatchObject({ role: 'system', content: 'be brief' });
    const written = serializeConversation(
      [...parsed.messages, { role: 'assistant', content: 'hello' }],
      parsed.format,
      parsed.envelope,
    ) as typeof body;
    expect(Object.keys(written)).toEqual(['model', 'messages', 'tools', 'temperature']);
    expect(written.messages).toEqual([...body.messages, { role: 'assistant', content: 'hello' }]);
  });

  it('returns a bare array for a bare array', () => {
    const parsed = parseConversation([
      { role: 'user', content: [{ type: 'text', text: 'hi' }], providerOptions: {} },
    ]);
    expect(parsed).toMatchObject({ format: 'ai-sdk', envelope: undefined });
    expect(serializeConversation(parsed.messages, parsed.format)).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hi' }], providerOptions: {} },
    ]);
  });

  it('converts between formats', () => {
    const parsed = parseConversation([
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '{"x":1}' } }],
      },
      { role: 'tool', tool_call_id: 'a', content: 'done' },
    ]);
    expect(serializeConversation(parsed.messages, 'ai-sdk')).toEqual([
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'a', toolName: 'f', input: { x: 1 } }],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'a',
            toolName: 'f',
            output: { type: 'text', value: 'done' },
          },
        ],
      },
    ]);
  });
});

describe('values a conversation cannot hold, through every converter', () => {
  type Loose = Record<string, unknown>;
  /** A tool loop in each format: the list of messages (items) and how a converter takes it. */
  const formats: Array<{
    format: string;
    /** What paths start with. */
    root: string;
    list: () => Loose[];
    convert: (list: unknown[]) => unknown;
    body: (list: unknown[]) => unknown;
  }> = [
    {
      format: 'openai-chat',
      root: 'messages',
      list: () => [
        { role: 'system', content: 's' },
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'ok' },
      ],
      convert: (list) => fromOpenAIChat(list),
      body: (messages) => ({ model: 'gpt-4o', messages }),
    },
    {
      format: 'anthropic',
      root: 'messages',
      list: () => [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'f', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'ok' }] },
      ],
      convert: (messages) => fromAnthropicMessages({ system: 's', messages }),
      body: (messages) => ({ system: 's', messages }),
    },
    {
      format: 'openai-responses',
      root: 'input',
      list: () => [
        { role: 'user', content: 'hi' },
        { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output: 'ok' },
      ],
      convert: (input) => fromOpenAIResponses({ instructions: 's', input }),
      body: (input) => ({ instructions: 's', input }),
    },
    {
      format: 'ai-sdk',
      root: 'messages',
      list: () => [
        { role: 'system', content: 's' },
        { role: 'user', content: [{ type: 'text', text: 'hi' }] },
        {
          role: 'assistant',
          content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'f', input: {} }],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'c1',
              toolName: 'f',
              output: { type: 'text', value: 'ok' },
            },
          ],
        },
      ],
      convert: (list) => fromModelMessages(list),
      body: (messages) => messages,
    },
  ];
  const corruptions: Array<[string, (list: Loose[]) => unknown[], string, string]> = [
    [
      'an entry that refers to itself',
      (list) => {
        list[1]!.self = list[1];
        return list;
      },
      '[1].self',
      'circular reference',
    ],
    [
      'a BigInt',
      (list) => {
        list[1]!.meta = { n: BigInt(1) };
        return list;
      },
      '[1].meta.n',
      'a bigint is not a JSON value',
    ],
    [
      'a function',
      (list) => {
        list[1]!.render = () => 'x';
        return list;
      },
      '[1].render',
      'a function is not a JSON value',
    ],
    [
      'a getter that throws',
      (list) => {
        Object.defineProperty(list[1], 'secret', {
          enumerable: true,
          get: () => {
            throw new Error('denied');
          },
        });
        return list;
      },
      '[1].secret',
      'reading it threw (Error: denied)',
    ],
    [
      'a hole',
      (list) => {
        delete list[1];
        return list;
      },
      '[1]',
      'the array has a hole',
    ],
    ['a null entry', (list) => [list[0], null, ...list.slice(2)], '[1]', ''],
  ];

  for (const { format, root, list, convert, body } of formats) {
    it.each(corruptions)(
      `${format}: rejects %s with InvalidMessageError naming the path`,
      (_name, corrupt, suffix, problem) => {
        for (const action of [
          () => convert(corrupt(list())),
          () => parseConversation(body(corrupt(list()))),
        ]) {
          const error = thrownInvalidMessage(action);
          expect(error.path).toBe(`${root}${suffix}`);
          expect(error.message).toContain(problem);
        }
      },
    );
  }

  it('still calls a list without any message object no conversation', () => {
    expect(unsupported(() => parseConversation([null, 1])).message).toContain(
      'messages[0] is null, not a message object',
    );
  });
});

describe('a bare array comes back a bare array', () => {
  const summary: Message = {
    role: 'system',
    content: 'Summary of the earlier conversation.',
    ctxmem: { kind: 'summary' },
  };
  it.each<[string, unknown[]]>([
    [
      'openai-chat',
      [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: null, tool_calls: [] },
      ],
    ],
    [
      'anthropic',
      [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'f', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'ok' }] },
      ],
    ],
    [
      'openai-responses',
      [
        { role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
        { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output: 'ok' },
      ],
    ],
    ['ai-sdk', [{ role: 'user', content: [{ type: 'text', text: 'hi' }], providerOptions: {} }]],
  ])('%s, with a summary added in front', (format, input) => {
    const parsed = parseConversation(input);
    expect(parsed).toMatchObject({ format, envelope: undefined });
    expect(serializeConversation(parsed.messages, parsed.format, parsed.envelope)).toEqual(input);
    const written = serializeConversation(
      [summary, ...parsed.messages],
      parsed.format,
      parsed.envelope,
    ) as unknown[];
    expect(Array.isArray(written)).toBe(true);
    // The summary is read back as the first message; for Anthropic, whose messages have no
    // system role, as a user turn (Anthropic combines it with a user turn that follows).
    const reread = parseConversation(written).messages;
    expect(reread[0]).toMatchObject({
      role: format === 'anthropic' ? 'user' : 'system',
      content: summary.content,
    });
    expect(reread.slice(1)).toEqual(parsed.messages);
  });

  it('writes an Anthropic system prompt beside the messages when given an envelope', () => {
    const parsed = parseConversation({ system: 's', messages: [{ role: 'user', content: 'hi' }] });
    expect(serializeConversation(parsed.messages, 'anthropic', {})).toEqual({
      system: 's',
      messages: [{ role: 'user', content: 'hi' }],
    });
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AssistantMessage, Message, ToolMessage } from '../../contracts/index.js';
import { arbitraryMessages, arbitraryOpenAIChatMessages } from '../../test/arbitraries/index.js';
import {
  fromOpenAIChat,
  OPENAI_CHAT_OPTIONS_KEY,
  type OpenAIChatMessage,
  toOpenAIChat,
  validateMessages,
} from '../index.js';
import { thrownInvalidMessage } from '../invalid-message.test-support.js';

const roundTrip = (messages: unknown[]) => toOpenAIChat(fromOpenAIChat(messages));

describe('fromOpenAIChat / toOpenAIChat round trip', () => {
  it('gives back every generated OpenAI history deep-equal, as valid core messages', () => {
    fc.assert(
      fc.property(arbitraryOpenAIChatMessages(), (history) => {
        const core = fromOpenAIChat(history);
        expect(toOpenAIChat(core)).toStrictEqual(history);
        // Every generated history answers each call right after it, so pairing must hold too.
        expect(() => validateMessages(core)).not.toThrow();
      }),
      { numRuns: 200 },
    );
  });

  it('keeps a parallel-call conversation exactly, with one tool message per result', () => {
    const history = [
      { role: 'developer', content: 'Be terse.' },
      { role: 'user', content: 'Weather in Paris and Rome?', name: 'alice' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_a',
            type: 'function',
            function: { name: 'weather', arguments: '{"city":"Paris"}' },
          },
          {
            id: 'call_b',
            type: 'function',
            function: { name: 'weather', arguments: '{"city": "Rome"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: '18°C' },
      { role: 'tool', tool_call_id: 'call_b', content: [{ type: 'text', text: '24°C' }] },
      { role: 'assistant', content: 'Paris 18°C, Rome 24°C.', refusal: null, annotations: [] },
    ];
    const core = fromOpenAIChat(history);
    expect(core).toHaveLength(6);
    expect(core[0]).toMatchObject({ role: 'system', content: 'Be terse.' });
    expect(core[1]).toMatchObject({ role: 'user', name: 'alice' });
    const assistant = core[2] as AssistantMessage;
    expect(assistant.content).toEqual([
      { type: 'tool-call', toolCallId: 'call_a', toolName: 'weather', input: { city: 'Paris' } },
      expect.objectContaining({ toolCallId: 'call_b', input: { city: 'Rome' } }),
    ]);
    expect((core[3] as ToolMessage).content[0]).toEqual({
      type: 'tool-result',
      toolCallId: 'call_a',
      toolName: 'weather',
      output: { type: 'text', value: '18°C' },
    });
    expect((core[4] as ToolMessage).content[0]).toMatchObject({
      toolName: 'weather',
      output: { type: 'content', value: [{ type: 'text', text: '24°C' }] },
    });
    expect(toOpenAIChat(core)).toStrictEqual(history);
  });

  it('keeps unparsable arguments as the raw string and returns them byte-identical', () => {
    const text = '{"path": "/tmp/unterminated';
    const history = [
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read', arguments: text } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'error' },
    ];
    const core = fromOpenAIChat(history);
    expect((core[1] as AssistantMessage).content).toMatchObject([{ input: text }]);
    const call = toOpenAIChat(core)[1] as {
      tool_calls: Array<{ function: { arguments: string } }>;
    };
    expect(call.tool_calls[0]!.function.arguments).toBe(text);
  });

  it('parses non-canonical arguments but sends the original text while the input is unchanged', () => {
    const text = '{\n  "a": 1.0,\n  "b": [1, 2]\n}';
    const history = [
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: text } }],
      },
    ];
    const core = fromOpenAIChat(history);
    const part = (core[0] as AssistantMessage).content[0] as { input: unknown };
    expect(part.input).toEqual({ a: 1, b: [1, 2] });
    expect(toOpenAIChat(core)).toStrictEqual(history);

    // A strategy that rewrites the input must win over the remembered text.
    const rewritten: Message[] = [
      {
        ...(core[0] as AssistantMessage),
        content: [{ ...(part as object), input: { a: 2 } } as never],
      },
    ];
    const sent = toOpenAIChat(rewritten)[0] as {
      tool_calls: Array<{ function: { arguments: string } }>;
    };
    expect(sent.tool_calls[0]!.function.arguments).toBe('{"a":2}');
  });

  it('carries 10,000-deep arguments as text instead of overflowing the stack', () => {
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    const history = [
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: deep } }],
      },
    ];
    const core = fromOpenAIChat(history);
    expect((core[0] as AssistantMessage).content).toMatchObject([{ input: deep }]);
    expect(toOpenAIChat(core)).toStrictEqual(history);
  });

  it('converts a 10 MB message both ways', () => {
    const huge = 'x'.repeat(10_000_000);
    const history = [{ role: 'user', content: huge }];
    expect(roundTrip(history)).toStrictEqual(history);
  });

  it('maps user media to core parts the AI SDK understands', () => {
    const core = fromOpenAIChat([
      {
        role: 'user',
        content: [
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA', detail: 'low' } },
          { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'mp3' } },
          { type: 'file', file: { file_id: 'file-123', filename: 'a.pdf' } },
        ],
      },
    ]);
    expect(core[0]!.content).toEqual([
      {
        type: 'image',
        image: 'data:image/png;base64,AAAA',
        mediaType: 'image/png',
        providerOptions: { openai: { imageDetail: 'low' } },
      },
      { type: 'file', data: 'UklGRg==', mediaType: 'audio/mpeg' },
      { type: 'file', data: 'file-123', mediaType: 'application/pdf', filename: 'a.pdf' },
    ]);
  });

  it('keeps the developer role, content shapes and unknown fields in providerOptions.openaiChat', () => {
    const core = fromOpenAIChat([
      {
        role: 'developer',
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b', cache_control: { type: 'ephemeral' } },
        ],
      },
      { role: 'assistant', content: 'hi', metadata: { source: 'log' } },
    ]);
    expect(core[0]).toEqual({
      role: 'system',
      content: 'a\nb',
      providerOptions: {
        [OPENAI_CHAT_OPTIONS_KEY]: {
          role: 'developer',
          content: 'parts',
          parts: [{ length: 1 }, { length: 1, extra: { cache_control: { type: 'ephemeral' } } }],
        },
      },
    });
    expect(core[1]!.providerOptions).toEqual({
      [OPENAI_CHAT_OPTIONS_KEY]: { extra: { metadata: { source: 'log' } } },
    });
  });

  it('sends rewritten system content whole when the remembered part lengths no longer fit', () => {
    const [system] = fromOpenAIChat([
      {
        role: 'system',
        content: [
          { type: 'text', text: 'one' },
          { type: 'text', text: 'two' },
        ],
      },
    ]);
    const rewritten = { ...system!, content: 'a summary' } as Message;
    expect(toOpenAIChat([rewritten])).toEqual([
      { role: 'system', content: [{ type: 'text', text: 'a summary' }] },
    ]);
  });

  it('turns refusals into text the model can read and back into refusals', () => {
    const history = [
      { role: 'assistant', content: null, refusal: 'I cannot help with that.' },
      { role: 'assistant', content: [{ type: 'refusal', refusal: 'No.' }] },
    ];
    const core = fromOpenAIChat(history);
    expect(core[0]!.content).toMatchObject([{ type: 'text', text: 'I cannot help with that.' }]);
    expect(core[1]!.content).toMatchObject([{ type: 'text', text: 'No.' }]);
    expect(toOpenAIChat(core)).toStrictEqual(history);
  });

  it('looks the tool name up from the preceding call and leaves it empty for an orphan', () => {
    const core = fromOpenAIChat([
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'search', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'found' },
      { role: 'tool', tool_call_id: 'c9', content: 'lost' },
    ]);
    expect((core[1] as ToolMessage).content[0]).toMatchObject({ toolName: 'search' });
    expect((core[2] as ToolMessage).content[0]).toMatchObject({ toolName: '' });
  });
});

describe('toOpenAIChat from core messages', () => {
  it('answers every tool call with tool messages right after it', () => {
    fc.assert(
      fc.property(arbitraryMessages({ withImages: true, withCjk: true }), (messages) => {
        const sent = toOpenAIChat(messages);
        const results = messages.flatMap((message) =>
          message.role === 'tool'
            ? message.content.filter((part) => part.type === 'tool-result')
            : [],
        );
        expect(sent.filter((message) => message.role === 'tool')).toHaveLength(results.length);
        sent.forEach((message, index) => {
          if (message.role !== 'assistant' || !message.tool_calls) return;
          const answered = new Set<string>();
          for (let next = index + 1; sent[next]?.role === 'tool'; next++) {
            answered.add((sent[next] as { tool_call_id: string }).tool_call_id);
          }
          for (const call of message.tool_calls) expect(answered.has(call.id)).toBe(true);
        });
      }),
      { numRuns: 100 },
    );
  });

  it('splits multi-result tool messages, stringifies JSON and drops what OpenAI cannot take', () => {
    const messages: Message[] = [
      { role: 'system', content: 'sys', ctxmem: { kind: 'summary' }, id: 'm0' },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'thinking' },
          { type: 'text', text: 'Checking ' },
          { type: 'text', text: 'both.' },
          { type: 'tool-call', toolCallId: 'a', toolName: 'f', input: { x: 1 } },
          { type: 'tool-call', toolCallId: 'b', toolName: 'g', input: 'raw' },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'a',
            toolName: 'f',
            output: { type: 'json', value: { ok: true } },
          },
          {
            type: 'tool-result',
            toolCallId: 'b',
            toolName: 'g',
            output: {
              type: 'content',
              value: [
                { type: 'text', text: 'see' },
                { type: 'media', data: 'AA', mediaType: 'image/png' },
              ],
            },
          },
          { type: 'tool-approval-response', approvalId: 'x', approved: true },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'image', image: 'AAAA', mediaType: 'image/png' },
          { type: 'file', data: new Uint8Array([1, 2, 3]), mediaType: 'application/pdf' },
        ],
      },
    ];
    expect(toOpenAIChat(messages)).toEqual<OpenAIChatMessage[]>([
      { role: 'system', content: 'sys' },
      {
        role: 'assistant',
        content: 'Checking both.',
        tool_calls: [
          { id: 'a', type: 'function', function: { name: 'f', arguments: '{"x":1}' } },
          { id: 'b', type: 'function', function: { name: 'g', arguments: '"raw"' } },
        ],
      },
      { role: 'tool', tool_call_id: 'a', content: '{"ok":true}' },
      {
        role: 'tool',
        tool_call_id: 'b',
        content: [
          { type: 'text', text: 'see' },
          { type: 'text', text: '[image/png omitted]' },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
          { type: 'file', file: { file_data: 'data:application/pdf;base64,AQID' } },
        ],
      },
    ]);
  });

  it('gives an assistant message without text or calls an empty string, as OpenAI requires', () => {
    expect(
      toOpenAIChat([{ role: 'assistant', content: [{ type: 'reasoning', text: 'x' }] }]),
    ).toEqual([{ role: 'assistant', content: '' }]);
  });

  it('throws InvalidMessageError with the path for input JSON cannot hold', () => {
    let deep: unknown = 0;
    for (let level = 0; level < 20_000; level++) deep = [deep];
    const error = thrownInvalidMessage(() =>
      toOpenAIChat([
        { role: 'user', content: 'x' },
        {
          role: 'assistant',
          content: [{ type: 'tool-call', toolCallId: 'a', toolName: 'f', input: deep }],
        },
      ]),
    );
    expect(error.path).toBe('messages[1].content[0].input');
  });
});

describe('fromOpenAIChat errors', () => {
  it.each([
    ['not an array', { messages: [] }, 'messages'],
    ['a message that is not an object', ['hi'], 'messages[0]'],
    ['an unknown role', [{ role: 'human', content: 'x' }], 'messages[0].role'],
    [
      'the deprecated function role',
      [{ role: 'function', name: 'f', content: 'x' }],
      'messages[0].role',
    ],
    ['null user content', [{ role: 'user', content: null }], 'messages[0].content'],
    [
      'a system part that is not text',
      [{ role: 'system', content: [{ type: 'image_url' }] }],
      'messages[0].content[0].type',
    ],
    [
      'an unknown user part',
      [{ role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'video' }] }],
      'messages[0].content[1].type',
    ],
    [
      'an image without a url',
      [{ role: 'user', content: [{ type: 'image_url', image_url: {} }] }],
      'messages[0].content[0].image_url.url',
    ],
    [
      'a file without data or id',
      [{ role: 'user', content: [{ type: 'file', file: { filename: 'a' } }] }],
      'messages[0].content[0].file',
    ],
    [
      'a tool call without id',
      [
        {
          role: 'assistant',
          tool_calls: [{ type: 'function', function: { name: 'f', arguments: '{}' } }],
        },
      ],
      'messages[0].tool_calls[0].id',
    ],
    [
      'an empty tool call id',
      [
        {
          role: 'assistant',
          tool_calls: [{ id: '', type: 'function', function: { name: 'f', arguments: '{}' } }],
        },
      ],
      'messages[0].tool_calls[0].id',
    ],
    [
      'arguments that are not a string',
      [
        {
          role: 'assistant',
          tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: {} } }],
        },
      ],
      'messages[0].tool_calls[0].function.arguments',
    ],
    [
      'a tool message without tool_call_id',
      [{ role: 'tool', content: 'x' }],
      'messages[0].tool_call_id',
    ],
    [
      'a tool message with null content',
      [{ role: 'tool', tool_call_id: 'a', content: null }],
      'messages[0].content',
    ],
    ['a name that is not a string', [{ role: 'user', content: 'x', name: 7 }], 'messages[0].name'],
  ])('rejects %s', (_case, input, path) => {
    const error = thrownInvalidMessage(() => fromOpenAIChat(input));
    expect(error.path).toBe(path);
    expect(error.message).toContain(path);
  });
});

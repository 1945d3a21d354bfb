import { describe, expect, it } from 'vitest';
import type { Message } from '../../contracts/index.js';
import { InvalidMessageError, UnsupportedFormatError } from '../../errors/index.js';
import { countToolDefinitions, createTokenCounter } from '../../tokens/index.js';
import { detectFormat, parseConversation, serializeConversation } from '../conversation-format.js';
import {
  checkToolPairing,
  MISSING_TOOL_RESULT_TEXT,
  repairMessages,
} from '../validate-messages.js';
import { fromOpenAIResponses, toOpenAIResponses } from './index.js';

const reasoning = {
  type: 'reasoning',
  id: 'rs_1',
  summary: [{ type: 'summary_text', text: 'The user wants the port; look it up.' }],
  encrypted_content: 'gAAAAB-opaque',
};

/** A body as the `openai` package types it (`ResponseCreateParams`), with every item kind. */
const body = {
  model: 'gpt-4.1',
  instructions: 'You are terse.',
  input: [
    { role: 'developer', content: 'Answer in English.' },
    { role: 'user', content: 'Find the port.' },
    reasoning,
    {
      type: 'message',
      id: 'msg_1',
      role: 'assistant',
      status: 'completed',
      content: [
        { type: 'output_text', text: 'Looking.', annotations: [] },
        { type: 'output_text', text: 'One moment.', annotations: [] },
      ],
    },
    {
      type: 'function_call',
      id: 'fc_1',
      call_id: 'call_1',
      name: 'lookup',
      arguments: '{"query": "port"}',
      status: 'completed',
    },
    { type: 'function_call', call_id: 'call_2', name: 'lookup', arguments: '{"query":"host"}' },
    { type: 'function_call_output', call_id: 'call_1', output: 'port 8080' },
    {
      type: 'function_call_output',
      call_id: 'call_2',
      output: [{ type: 'input_text', text: 'host db.internal' }],
    },
    {
      type: 'message',
      role: 'user',
      content: [
        { type: 'input_text', text: 'And this picture?' },
        { type: 'input_image', image_url: 'https://example.com/a.png', detail: 'low' },
        { type: 'input_file', file_id: 'file-123' },
      ],
    },
    { role: 'assistant', content: 'A cat.' },
  ],
  tools: [
    {
      type: 'function',
      name: 'lookup',
      description: 'Looks a setting up.',
      parameters: { type: 'object', properties: { query: { type: 'string' } } },
      strict: false,
    },
  ],
  max_output_tokens: 512,
};

describe('OpenAI Responses bodies', () => {
  it('reads instructions, messages, reasoning, calls and outputs into the message model', () => {
    const messages = fromOpenAIResponses(body);
    expect(messages.map((message) => message.role)).toEqual([
      'system',
      'system',
      'user',
      'assistant',
      'tool',
      'user',
      'assistant',
    ]);
    expect(messages[0]).toMatchObject({ role: 'system', content: 'You are terse.' });
    const assistant = messages[3]!;
    expect(Array.isArray(assistant.content) && assistant.content.map((part) => part.type)).toEqual([
      'reasoning',
      'text',
      'text',
      'tool-call',
      'tool-call',
    ]);
    expect(assistant.content[0]).toMatchObject({
      type: 'reasoning',
      text: 'The user wants the port; look it up.',
    });
    expect(assistant.content[3]).toMatchObject({
      toolCallId: 'call_1',
      toolName: 'lookup',
      input: { query: 'port' },
    });
    expect(messages[4]!.content).toMatchObject([
      {
        type: 'tool-result',
        toolCallId: 'call_1',
        toolName: 'lookup',
        output: { value: 'port 8080' },
      },
      {
        toolCallId: 'call_2',
        output: { type: 'content', value: [{ type: 'text', text: 'host db.internal' }] },
      },
    ]);
    expect(checkToolPairing(messages)).toEqual([]);
  });

  it('round-trips a whole body through parseConversation and serializeConversation', () => {
    const parsed = parseConversation(JSON.stringify(body));
    expect(parsed.format).toBe('openai-responses');
    expect(parsed.envelope).toMatchObject({ model: 'gpt-4.1', max_output_tokens: 512 });
    const written = serializeConversation(parsed.messages, parsed.format, parsed.envelope);
    expect(written).toEqual(body);
    expect(Object.keys(written as object)).toEqual(Object.keys(body));
  });

  it('round-trips system parts, files, refusals, empty and input_text assistant content', () => {
    const input = [
      {
        type: 'message',
        role: 'system',
        content: [
          { type: 'input_text', text: 'first' },
          { type: 'input_text', text: 'second' },
        ],
      },
      {
        role: 'user',
        content: [
          {
            type: 'input_file',
            file_data: 'data:application/pdf;base64,JVBERi0=',
            filename: 'a.pdf',
          },
          { type: 'input_file', file_url: 'https://example.com/b.pdf' },
          { type: 'input_image', file_id: 'file-img', detail: 'high' },
        ],
      },
      {
        type: 'message',
        id: 'msg_2',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'refusal', refusal: 'I cannot.' }],
      },
      { role: 'assistant', content: [] },
      { role: 'assistant', content: [{ type: 'input_text', text: 'plain' }] },
      { role: 'user', content: 'ok' },
    ];
    const messages = fromOpenAIResponses({ input });
    expect(messages[0]).toMatchObject({ role: 'system', content: 'first\nsecond' });
    expect(messages[1]!.content).toMatchObject([
      { type: 'file', mediaType: 'application/pdf', filename: 'a.pdf' },
      { type: 'file', data: 'https://example.com/b.pdf' },
      { type: 'image', image: 'file-img' },
    ]);
    expect(toOpenAIResponses(messages).input).toEqual(input);
    // A rewritten system text no longer fits the parts it was joined from: one part.
    const rewritten = [{ ...messages[0]!, content: 'shorter' } as Message];
    expect(toOpenAIResponses(rewritten).input).toEqual([
      { type: 'message', role: 'system', content: [{ type: 'input_text', text: 'shorter' }] },
    ]);
  });

  it('keeps a plain string input a string, and adds no instructions a body did not have', () => {
    const plain = { model: 'gpt-4o', input: 'Hello there' };
    const parsed = parseConversation(plain);
    expect(parsed).toMatchObject({ format: 'openai-responses', inputAsText: true });
    expect(parsed.messages).toEqual([{ role: 'user', content: 'Hello there' }]);
    expect(serializeConversation(parsed.messages, parsed.format, parsed.envelope, parsed)).toEqual(
      plain,
    );
    // Once the conversation grows, the input becomes items.
    const longer = [...parsed.messages, { role: 'assistant', content: 'Hi.' } as Message];
    expect(serializeConversation(longer, parsed.format, parsed.envelope, parsed)).toEqual({
      model: 'gpt-4o',
      input: [
        { role: 'user', content: 'Hello there' },
        { role: 'assistant', content: 'Hi.' },
      ],
    });
  });

  it('writes messages that ctxmem created as plain items and leaves out reasoning it cannot send', () => {
    const parsed = parseConversation(body);
    const summary: Message = {
      role: 'system',
      content: '## Context Summary\nThe port is 8080.',
      ctxmem: { kind: 'summary' },
    };
    const compacted: Message[] = [
      parsed.messages[0]!,
      summary,
      { role: 'assistant', content: [{ type: 'reasoning', text: 'from another provider' }] },
      { role: 'user', content: 'And the host?' },
    ];
    expect(toOpenAIResponses(compacted)).toEqual({
      instructions: 'You are terse.',
      input: [
        { role: 'system', content: '## Context Summary\nThe port is 8080.' },
        { role: 'user', content: 'And the host?' },
      ],
    });
  });

  it('writes rewritten calls and results in Responses shape', () => {
    const messages: Message[] = [
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Calling.' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'run', input: { a: 1 } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'run',
            output: { type: 'json', value: { ok: true } },
          },
        ],
      },
    ];
    expect(toOpenAIResponses(messages).input).toEqual([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: 'Calling.' },
      { type: 'function_call', call_id: 'c1', name: 'run', arguments: '{"a":1}' },
      { type: 'function_call_output', call_id: 'c1', output: '{"ok":true}' },
    ]);
  });

  it('repairs pairing: a call without output gets one, an output without a call becomes text', () => {
    const broken = {
      input: [
        { role: 'user', content: 'go' },
        { type: 'function_call', call_id: 'call_a', name: 'run', arguments: '{}' },
        { role: 'user', content: 'still there?' },
        { type: 'function_call_output', call_id: 'call_orphan', output: 'late' },
      ],
    };
    const parsed = parseConversation(broken);
    expect(checkToolPairing(parsed.messages).length).toBeGreaterThan(0);
    const { messages, repairs } = repairMessages(parsed.messages);
    expect(repairs.length).toBeGreaterThan(0);
    expect(checkToolPairing(messages)).toEqual([]);
    const input = (serializeConversation(messages, parsed.format, parsed.envelope) as typeof broken)
      .input;
    expect(input).toEqual([
      { role: 'user', content: 'go' },
      { type: 'function_call', call_id: 'call_a', name: 'run', arguments: '{}' },
      { type: 'function_call_output', call_id: 'call_a', output: MISSING_TOOL_RESULT_TEXT },
      { role: 'user', content: 'still there?' },
      // Core keeps the orphan's content as user text, so nothing the tool said is lost.
      {
        role: 'user',
        content: [{ type: 'input_text', text: expect.stringMatching(/call_orphan[\s\S]*late$/) }],
      },
    ]);
  });

  it('counts the whole request: instructions as a system message, tools as definitions', () => {
    const counter = createTokenCounter({ encoding: 'o200k_base' });
    const withInstructions = parseConversation(body);
    const { instructions: _instructions, ...rest } = body;
    const without = parseConversation(rest);
    const difference =
      counter.countMessages(withInstructions.messages) - counter.countMessages(without.messages);
    expect(difference).toBeGreaterThanOrEqual(counter.countText(body.instructions));
    expect(countToolDefinitions(body.tools, counter)).toBeGreaterThan(
      counter.countText('Looks a setting up.'),
    );
  });

  it('keeps arguments text that is not canonical JSON, and arguments that do not parse', () => {
    const input = [
      { type: 'function_call', call_id: 'a', name: 'f', arguments: '{ "x" : 1 }' },
      { type: 'function_call', call_id: 'b', name: 'f', arguments: '{not json' },
      { type: 'function_call_output', call_id: 'a', output: '1' },
      { type: 'function_call_output', call_id: 'b', output: '2' },
    ];
    const messages = fromOpenAIResponses({ input });
    expect(messages[0]!.content).toMatchObject([{ input: { x: 1 } }, { input: '{not json' }]);
    expect(toOpenAIResponses(messages).input).toEqual(input);
  });

  it('detects bare arrays of Responses items and rejects arrays that mix formats', () => {
    expect(detectFormat([{ role: 'user', content: [{ type: 'input_text', text: 'hi' }] }])).toBe(
      'openai-responses',
    );
    expect(
      detectFormat([{ type: 'function_call', call_id: 'a', name: 'f', arguments: '{}' }]),
    ).toBe('openai-responses');
    expect(detectFormat({ model: 'gpt-4o', input: [] })).toBe('openai-responses');
    expect(detectFormat([{ role: 'developer', content: 'x' }])).toBe('openai-chat');
    expect(() =>
      detectFormat([
        { type: 'function_call', call_id: 'a', name: 'f', arguments: '{}' },
        { role: 'tool', tool_call_id: 'a', content: 'x' },
      ]),
    ).toThrow(/mix OpenAI Responses \(messages\[0\]: type "function_call"\) and OpenAI Chat/);
  });
});

describe('invalid Responses input', () => {
  const cases: Array<[string, unknown, string]> = [
    ['a number input', 42, 'input'],
    ['an item that is not an object', ['hi'], 'input[0]'],
    [
      'a function_call without call_id',
      [{ type: 'function_call', name: 'f', arguments: '{}' }],
      'input[0].call_id',
    ],
    [
      'a function_call with object arguments',
      [{ type: 'function_call', call_id: 'a', name: 'f', arguments: {} }],
      'input[0].arguments',
    ],
    [
      'an output without call_id',
      [{ type: 'function_call_output', output: 'x' }],
      'input[0].call_id',
    ],
    [
      'an output that is a number',
      [{ type: 'function_call_output', call_id: 'a', output: 3 }],
      'input[0].output',
    ],
    ['a tool role', [{ role: 'tool', content: 'x' }], 'input[0].role'],
    [
      'a user part of an unknown type',
      [{ role: 'user', content: [{ type: 'text', text: 'x' }] }],
      'input[0].content[0].type',
    ],
    [
      'an image without a source',
      [{ role: 'user', content: [{ type: 'input_image', detail: 'auto' }] }],
      'input[0].content[0]',
    ],
    [
      'a system part that is not text',
      [{ role: 'system', content: [{ type: 'input_image' }] }],
      'input[0].content[0].type',
    ],
    ['an item with neither type nor role', [{ content: 'x' }], 'input[0]'],
  ];
  it.each(cases)('rejects %s with InvalidMessageError naming the path', (_name, input, path) => {
    let error: unknown;
    try {
      fromOpenAIResponses({ input });
    } catch (caught) {
      error = caught;
    }
    expect(InvalidMessageError.isInstance(error)).toBe(true);
    expect((error as InvalidMessageError).path).toBe(path);
    expect((error as Error).message).toContain(path);
  });

  it('rejects instructions that are not a string', () => {
    expect(() => fromOpenAIResponses({ instructions: ['x'], input: [] })).toThrow(
      InvalidMessageError,
    );
  });

  it('carries compaction items as opaque parts, written back verbatim', () => {
    const compaction = { type: 'compaction', id: 'cmp_1', encrypted_content: 'gAAAAB-state' };
    const input = [
      { role: 'user', content: 'Find the port.' },
      compaction,
      {
        type: 'message',
        id: 'msg_2',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Port 8080.', annotations: [] }],
      },
      { role: 'user', content: 'Thanks.' },
    ];
    const messages = fromOpenAIResponses({ input });
    expect(messages[1]).toMatchObject({
      role: 'assistant',
      content: [
        { type: 'custom', kind: 'openai.compaction' },
        { type: 'text', text: 'Port 8080.' },
      ],
    });
    expect(toOpenAIResponses(messages).input).toEqual(input);
    // The AI SDK's form of the same item (`@ai-sdk/openai` keeps the id and encrypted content).
    const fromAiSdk = toOpenAIResponses([
      {
        role: 'assistant',
        content: [
          {
            type: 'custom',
            kind: 'openai.compaction',
            providerOptions: { openai: { itemId: 'cmp_1', encryptedContent: 'gAAAAB-state' } },
          },
          { type: 'custom', kind: 'anthropic.message_start' },
        ],
      },
    ]);
    expect(fromAiSdk.input).toEqual([compaction]);
  });

  it('rejects item types it cannot represent with UnsupportedFormatError naming the item', () => {
    let error: unknown;
    try {
      parseConversation({ input: [{ type: 'web_search_call', id: 'ws_1', status: 'completed' }] });
    } catch (caught) {
      error = caught;
    }
    expect(UnsupportedFormatError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('"web_search_call" at input[0]');
  });
});

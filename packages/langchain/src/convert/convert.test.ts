import { InvalidMessageError, type Message, renderSummary, validateMessages } from '@ctxmem/core';
import { emptySections } from '@ctxmem/core/adapter-kit';
import {
  AIMessage,
  AIMessageChunk,
  type BaseMessage,
  ChatMessage,
  FunctionMessage,
  HumanMessage,
  RemoveMessage,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { brokenLangChainHistories, messageView } from '../langchain.test-support.js';
import {
  CTXMEM_KWARGS_KEY,
  fromLangChainMessages,
  MessageConverter,
  toLangChainMessages,
} from './index.js';

const tinyPng =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

function agentConversation(): BaseMessage[] {
  return [
    new SystemMessage({
      content: [
        {
          type: 'text',
          text: 'You are a careful assistant.',
          cache_control: { type: 'ephemeral' },
        },
        { type: 'text', text: 'Answer briefly.' },
      ],
    }),
    new HumanMessage({
      id: 'h1',
      content: [
        { type: 'text', text: 'What is in this chart?' },
        {
          type: 'image_url',
          image_url: { url: `data:image/png;base64,${tinyPng}`, detail: 'low' },
        },
        { type: 'image', url: 'https://example.com/chart.png' },
        {
          type: 'file',
          data: tinyPng,
          mimeType: 'application/pdf',
          metadata: { filename: 'a.pdf' },
        },
      ],
    }),
    new AIMessage({
      id: 'a1',
      content: [
        { type: 'thinking', thinking: 'I should look it up.', signature: 'sig-1' },
        { type: 'text', text: 'Let me check.' },
        { type: 'tool_use', id: 'call_1', name: 'lookup', input: { query: 'chart' } },
      ],
      tool_calls: [{ id: 'call_1', name: 'lookup', args: { query: 'chart' }, type: 'tool_call' }],
      usage_metadata: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
      response_metadata: { model_name: 'claude', stop_reason: 'tool_use' },
    }),
    new ToolMessage({
      id: 't1',
      content: 'Sales rose 12%.',
      tool_call_id: 'call_1',
      artifact: { rows: [1, 2, 3] },
    }),
    new AIMessage({
      content: '',
      tool_calls: [
        { id: 'call_2', name: 'lookup', args: { query: 'q2' } },
        { id: 'call_3', name: 'fail', args: {} },
      ],
      additional_kwargs: { reasoning_content: 'two more lookups' },
      invalid_tool_calls: [
        {
          id: 'call_x',
          name: 'broken',
          args: '{oops',
          error: 'bad json',
          type: 'invalid_tool_call',
        },
      ],
    }),
    new ToolMessage({
      content: [
        { type: 'text', text: 'Q2 rose 3%.', annotations: [] },
        { type: 'image', data: tinyPng, mimeType: 'image/png' },
      ],
      tool_call_id: 'call_2',
      name: 'lookup',
      status: 'success',
    }),
    new ToolMessage({ content: 'boom', tool_call_id: 'call_3', status: 'error' }),
    new AIMessage({
      content: [
        { type: 'reasoning', reasoning: 'Combine both.' },
        { type: 'text', text: 'Up 12%, then 3%.' },
      ],
      name: 'agent',
    }),
    new ChatMessage({ content: 'Looks right.', role: 'critic' }),
    new HumanMessage('Thanks!'),
  ];
}

describe('fromLangChainMessages / toLangChainMessages', () => {
  it('gives back every field providers use, for a tool-using multimodal conversation', () => {
    const messages = agentConversation();
    const back = toLangChainMessages(fromLangChainMessages(messages));
    expect(back.map(messageView)).toEqual(messages.map(messageView));
    expect(back[2]).toBeInstanceOf(AIMessage);
    expect(back[3]).toBeInstanceOf(ToolMessage);
    expect(back[8]).toBeInstanceOf(ChatMessage);
  });

  it('maps LangChain messages onto the core model that ctxmem compresses', () => {
    const core = fromLangChainMessages(agentConversation());
    expect(core.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'tool',
      'assistant',
      'user',
      'user',
    ]);
    expect(core[0]!.content).toBe('You are a careful assistant.\nAnswer briefly.');
    const human = core[1] as Extract<Message, { role: 'user' }>;
    expect((human.content as Array<{ type: string }>).map((part) => part.type)).toEqual([
      'text',
      'image',
      'image',
      'file',
    ]);
    const assistant = core[2] as Extract<Message, { role: 'assistant' }>;
    expect(assistant.content).toMatchObject([
      { type: 'reasoning', text: 'I should look it up.' },
      { type: 'text', text: 'Let me check.' },
      // Anthropic's tool_use block duplicates tool_calls: it is carried, not counted twice.
      { type: 'text', text: '' },
      { type: 'tool-call', toolCallId: 'call_1', toolName: 'lookup', input: { query: 'chart' } },
    ]);
    // A tool message without a name takes its tool name from the call it answers.
    expect(core[3]).toMatchObject({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'call_1', toolName: 'lookup' }],
    });
    expect(core[6]).toMatchObject({
      content: [{ output: { type: 'error-text', value: 'boom' } }],
    });
    // The core form is a valid, pair-safe history.
    expect(() => validateMessages(core)).not.toThrow();
  });

  it('marks the messages ctxmem creates so they are recognised when they come back', () => {
    const summary: Message = {
      role: 'system',
      content: renderSummary({ sections: { ...emptySections(), goal: ['Ship the report'] } }),
      ctxmem: { kind: 'summary' },
    };
    const record: Message = {
      role: 'assistant',
      content: '[3 tool calls] lookup(...)',
      ctxmem: { kind: 'tool-run-record', offloadIds: ['o1', 'o2'], replaces: ['a1'] },
    };
    const [summaryMessage, recordMessage] = toLangChainMessages([summary, record]);
    expect(summaryMessage).toBeInstanceOf(SystemMessage);
    expect(summaryMessage!.additional_kwargs[CTXMEM_KWARGS_KEY]).toEqual({ kind: 'summary' });
    expect(recordMessage).toBeInstanceOf(AIMessage);
    expect(fromLangChainMessages([summaryMessage!, recordMessage!])).toEqual([summary, record]);
  });

  it('follows rewritten content instead of restoring the original blocks', () => {
    const [human, system] = fromLangChainMessages([
      new HumanMessage({
        content: [{ type: 'text', text: 'long text', cache_control: { type: 'ephemeral' } }],
      }),
      new SystemMessage({ content: [{ type: 'text', text: 'rules', cache_control: {} }] }),
    ]) as [Extract<Message, { role: 'user' }>, Extract<Message, { role: 'system' }>];
    const preview: Message = { ...human, content: '[Offloaded 9 characters] Preview: long' };
    const edited: Message = {
      ...human,
      content: [{ ...(human.content as Array<{ type: 'text'; text: string }>)[0]!, text: 'short' }],
    };
    const newRules: Message = { ...system, content: 'new rules' };
    const [previewBack, editedBack, rulesBack] = toLangChainMessages([preview, edited, newRules]);
    expect(previewBack!.content).toBe('[Offloaded 9 characters] Preview: long');
    // Block fields other than the text survive an edit of the text.
    expect(editedBack!.content).toEqual([
      { type: 'text', text: 'short', cache_control: { type: 'ephemeral' } },
    ]);
    expect(rulesBack!.content).toBe('new rules');
  });

  it('converts core messages from other sources into plain LangChain messages', () => {
    const messages: Message[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'see' },
          { type: 'image', image: tinyPng, mediaType: 'image/png' },
          {
            type: 'file',
            data: new URL('https://example.com/a.pdf'),
            mediaType: 'application/pdf',
          },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: '{"q":1}' },
          { type: 'tool-call', toolCallId: 'c2', toolName: 'lookup', input: 7 },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'lookup',
            output: { type: 'json', value: { ok: true } },
          },
          {
            type: 'tool-result',
            toolCallId: 'c2',
            toolName: 'lookup',
            output: { type: 'execution-denied' },
          },
        ],
        id: 'tool-1',
      },
    ];
    const back = toLangChainMessages(messages);
    expect(back[0]!.content).toEqual([
      { type: 'text', text: 'see' },
      { type: 'image', data: tinyPng, mimeType: 'image/png' },
      { type: 'file', url: 'https://example.com/a.pdf', mimeType: 'application/pdf' },
    ]);
    expect((back[1] as AIMessage).content).toBe('');
    expect((back[1] as AIMessage).tool_calls).toEqual([
      { id: 'c1', name: 'lookup', args: { q: 1 } },
      { id: 'c2', name: 'lookup', args: { input: 7 } },
    ]);
    // One ToolMessage per result; the first keeps the id.
    expect(back.slice(2).map(messageView)).toMatchObject([
      { type: 'tool', id: 'tool-1', tool_call_id: 'c1', content: '{"ok":true}', name: 'lookup' },
      { type: 'tool', id: undefined, tool_call_id: 'c2', status: 'error' },
    ]);
  });

  it('reads message-like values and chunks, and never modifies its input', () => {
    const chunk = new AIMessageChunk({
      content: 'partial',
      tool_call_chunks: [{ id: 'c1', name: 'lookup', args: '{"q":1}', index: 0 }],
    });
    const input = [
      { role: 'user', content: 'hi' },
      chunk,
      new ToolMessage({ content: 'r', tool_call_id: 'c1' }),
    ] as const;
    const frozen = Object.freeze([...input]);
    const core = fromLangChainMessages(frozen);
    expect(core[0]).toEqual({ role: 'user', content: 'hi' });
    expect(core[1]).toMatchObject({
      role: 'assistant',
      content: [
        { type: 'text', text: 'partial' },
        { type: 'tool-call', toolCallId: 'c1' },
      ],
    });
    const back = toLangChainMessages(core);
    expect(back[1]).toBeInstanceOf(AIMessage);
    expect((back[1] as AIMessage).tool_calls).toEqual(chunk.tool_calls);
  });

  it('carries blocks core cannot read (redacted thinking, compaction) as opaque parts', () => {
    // As @langchain/anthropic returns them (utils/message_outputs: the API's blocks as they are).
    const content = [
      { type: 'thinking', thinking: 'Check the log.', signature: 'sig-1' },
      { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix' },
      { type: 'compaction', content: 'Summary of the earlier turns.' },
      { type: 'text', text: 'Done.' },
    ];
    const [core] = fromLangChainMessages([new AIMessage({ content })]);
    expect(core).toMatchObject({
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'Check the log.' },
        { type: 'custom', kind: 'langchain.redacted_thinking' },
        { type: 'custom', kind: 'langchain.compaction' },
        { type: 'text', text: 'Done.' },
      ],
    });
    expect(toLangChainMessages([core!])[0]!.content).toEqual(content);
    // A custom part from another door (an AI SDK stream's record) has no LangChain block.
    const [fromAiSdk] = toLangChainMessages([
      {
        role: 'assistant',
        content: [
          { type: 'custom', kind: 'anthropic.message_start' },
          { type: 'text', text: 'Hi.' },
        ],
      },
    ]);
    expect(fromAiSdk!.content).toEqual([{ type: 'text', text: 'Hi.' }]);
  });

  it('rejects what is not a message of a history with a typed error and its path', () => {
    const cases: Array<[unknown[], string]> = [
      [
        [new HumanMessage('a'), new FunctionMessage({ content: 'x', name: 'f' })],
        'messages[1].type',
      ],
      [[new RemoveMessage({ id: 'x' })], 'messages[0].type'],
      [[new ToolMessage({ content: 'r', tool_call_id: '' })], 'messages[0].tool_call_id'],
      [[new HumanMessage({ content: ['not a block' as never] })], 'messages[0].content[0]'],
      [
        [new HumanMessage({ content: [{ text: 'no type' } as never] })],
        'messages[0].content[0].type',
      ],
      [
        [new AIMessage({ content: '', tool_calls: [{ id: 'c', name: '', args: {} }] })],
        'messages[0].tool_calls[0].name',
      ],
      [[42], 'messages[0]'],
    ];
    for (const [messages, path] of cases) {
      let caught: unknown;
      try {
        fromLangChainMessages(messages as BaseMessage[]);
      } catch (error) {
        caught = error;
      }
      expect(InvalidMessageError.isInstance(caught), String(caught)).toBe(true);
      expect((caught as InvalidMessageError).path).toBe(path);
    }
  });
});

describe('histories that cannot be sent', () => {
  // Protection: the converters check the fields they carry as data, where the LangChain paths are
  // known, and read the list by index. Without that a cycle in kwargs reaches core under a
  // providerOptions path, and a hole comes back as a hole (map skips it).
  it.each(brokenLangChainHistories().map((broken) => [broken.name, broken] as const))(
    'rejects %s with InvalidMessageError naming the LangChain path',
    (_name, broken) => {
      for (const convert of [
        () => fromLangChainMessages(broken.messages as BaseMessage[]),
        () => new MessageConverter().fromLangChain(broken.messages as BaseMessage[]),
      ]) {
        let caught: unknown;
        try {
          convert();
        } catch (error) {
          caught = error;
        }
        expect(InvalidMessageError.isInstance(caught), String(caught)).toBe(true);
        expect((caught as InvalidMessageError).path).toBe(broken.path);
        expect((caught as InvalidMessageError).message).toContain(broken.problem);
      }
    },
  );
});

describe('MessageConverter', () => {
  it('reuses conversions and gives back the original objects of untouched messages', () => {
    const converter = new MessageConverter();
    const artifact = new Map([['rows', 3]]);
    const messages = [
      new HumanMessage('hi'),
      new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'lookup', args: {} }] }),
      new ToolMessage({ content: 'r', tool_call_id: 'c1', artifact }),
    ];
    const first = converter.fromLangChain(messages);
    const second = converter.fromLangChain(messages);
    expect(second).toEqual(first);
    second.forEach((message, index) => {
      expect(message).toBe(first[index]);
    });
    const created: Message = { role: 'system', content: 'summary', ctxmem: { kind: 'summary' } };
    const back = converter.toLangChain([created, ...first]);
    expect(back.slice(1)).toEqual(messages);
    back.slice(1).forEach((message, index) => {
      expect(message).toBe(messages[index]);
    });
    // A Map is no JSON: only the original object carries it.
    expect((back[3] as ToolMessage).artifact).toBe(artifact);
    expect(back[0]).toBeInstanceOf(SystemMessage);
  });

  it('converts a message again when it was changed after its conversion', () => {
    const converter = new MessageConverter();
    const message = new AIMessage('draft');
    const [before] = converter.fromLangChain([message]);
    message.content = 'final';
    const [after] = converter.fromLangChain([message]);
    expect(after).not.toBe(before);
    expect(after!.content).toBe('final');
  });
});

import { describe, expect, it } from 'vitest';
import { InvalidMessageError, UnsupportedFormatError } from '../../errors/index.js';
import { parseConversation, serializeConversation } from '../conversation-format.js';
import { fromAnthropicMessages, toAnthropicMessages } from './index.js';

const body = {
  model: 'claude-sonnet-4-5',
  max_tokens: 1024,
  system: 'You are terse.',
  tools: [{ name: 'lookup', description: 'Looks up.', input_schema: { type: 'object' } }],
  messages: [
    { role: 'user', content: 'Find the port.' },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Looking.' },
        { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { query: 'port' } },
      ],
    },
    {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_1',
          content: 'port 8080',
          cache_control: { type: 'ephemeral' },
        },
        { type: 'text', text: 'And the host?' },
      ],
    },
  ],
};

describe('Anthropic Messages bodies', () => {
  it('reads the top-level system as a leading system message and tool results as a tool message', () => {
    const messages = fromAnthropicMessages(body);
    expect(messages.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'user',
    ]);
    expect(messages[0]).toEqual({ role: 'system', content: 'You are terse.' });
    expect(messages[3]).toMatchObject({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'toolu_1', toolName: 'lookup' }],
    });
  });

  it('writes back the same body, system at the top, cache_control kept', () => {
    const parsed = parseConversation(body);
    expect(parsed.format).toBe('anthropic');
    const written = serializeConversation(parsed.messages, parsed.format, parsed.envelope);
    expect(written).toEqual(body);
    expect(JSON.stringify(written)).not.toContain('"role":"system"');
  });

  it('keeps a system given as blocks as blocks', () => {
    const blocks = {
      ...body,
      system: [{ type: 'text', text: 'Rules.', cache_control: { type: 'ephemeral' } }],
    };
    const parsed = parseConversation(blocks);
    const written = serializeConversation(parsed.messages, parsed.format, parsed.envelope, {
      systemAsBlocks: parsed.systemAsBlocks === true,
    });
    expect(written).toEqual(blocks);
  });

  it('detects a plain Anthropic body by its top-level system, not as OpenAI', () => {
    const plain = { model: 'x', system: 'S', messages: [{ role: 'user', content: 'hi' }] };
    expect(parseConversation(plain).format).toBe('anthropic');
    const openai = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] };
    expect(parseConversation(openai).format).toBe('openai-chat');
  });

  it('puts a summary system message made by compaction into the top-level system', () => {
    const { system, messages } = toAnthropicMessages([
      { role: 'system', content: 'Rules.' },
      { role: 'system', content: '## Context Summary\n- earlier', ctxmem: { kind: 'summary' } },
      { role: 'user', content: 'next' },
    ]);
    expect(system).toBe('Rules.\n\n## Context Summary\n- earlier');
    expect(messages).toEqual([{ role: 'user', content: 'next' }]);
  });

  it('carries a compaction block as an opaque part and writes it back verbatim', () => {
    const compaction = {
      type: 'compaction',
      content: 'Summary: the user wants the port of the staging host.',
      encrypted_content: 'opaque-state',
      cache_control: { type: 'ephemeral' },
    };
    const withCompaction = {
      messages: [
        { role: 'user', content: 'Find the port.' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Recall.', signature: 'sig' },
            compaction,
            { type: 'text', text: 'Port 8080.' },
          ],
        },
        { role: 'user', content: 'Thanks.' },
      ],
    };
    const messages = fromAnthropicMessages(withCompaction);
    expect(messages[1]).toEqual({
      role: 'assistant',
      content: [
        {
          type: 'reasoning',
          text: 'Recall.',
          providerOptions: { anthropic: { signature: 'sig' } },
        },
        {
          type: 'custom',
          kind: 'anthropic.compaction',
          providerOptions: { anthropic: { block: compaction } },
        },
        { type: 'text', text: 'Port 8080.' },
      ],
    });
    expect(toAnthropicMessages(messages).messages).toEqual(withCompaction.messages);
  });

  it('leaves out custom parts that are no Anthropic block', () => {
    const { messages } = toAnthropicMessages([
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: [
          {
            type: 'custom',
            kind: 'anthropic.message_start',
            providerOptions: { anthropic: { id: 'm' } },
          },
          { type: 'custom', kind: 'openai.compaction' },
          { type: 'text', text: 'hello' },
        ],
      },
    ]);
    expect(messages[1]).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'hello' }] });
  });

  it('rejects block types it cannot represent and malformed messages with typed errors', () => {
    expect(() =>
      fromAnthropicMessages({
        messages: [{ role: 'assistant', content: [{ type: 'server_tool_use', id: 'a' }] }],
      }),
    ).toThrow(UnsupportedFormatError);
    expect(() => fromAnthropicMessages({ messages: [{ role: 'system', content: 'x' }] })).toThrow(
      InvalidMessageError,
    );
    expect(() =>
      fromAnthropicMessages({
        messages: [{ role: 'user', content: [{ type: 'tool_result' }] }],
      }),
    ).toThrow(/tool_use_id/);
  });
});

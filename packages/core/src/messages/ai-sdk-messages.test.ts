import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../contracts/index.js';
import { InvalidMessageError } from '../errors/index.js';
import { arbitraryModelMessages } from '../test/arbitraries/index.js';
import { fromModelMessages, toModelMessages } from './index.js';

describe('fromModelMessages / toModelMessages', () => {
  it('round-trips generated ModelMessage histories and keeps the very same objects on input', () => {
    fc.assert(
      fc.property(arbitraryModelMessages({ withCjk: true }), (history) => {
        const core = fromModelMessages(history);
        core.forEach((message, index) => {
          expect(message).toBe(history[index]);
        });
        expect(toModelMessages(core)).toStrictEqual(history);
      }),
      { numRuns: 150 },
    );
  });

  it('drops id, name and ctxmem metadata on output and keeps providerOptions and every part', () => {
    const messages: Message[] = [
      {
        role: 'system',
        content: '## Context Summary',
        id: 'sum-1',
        ctxmem: { kind: 'summary', replaces: ['m1'] },
        providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
      },
      {
        role: 'assistant',
        name: 'helper',
        content: [
          { type: 'reasoning', text: 'hmm', providerOptions: { anthropic: { signature: 's' } } },
          { type: 'file', data: 'AA', mediaType: 'image/png' },
          { type: 'tool-call', toolCallId: 'a', toolName: 'rm', input: {} },
          { type: 'tool-approval-request', approvalId: 'ap', toolCallId: 'a' },
        ],
      },
    ];
    expect(toModelMessages(messages)).toStrictEqual([
      {
        role: 'system',
        content: '## Context Summary',
        providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
      },
      { role: 'assistant', content: messages[1]!.content },
    ]);
    expect(messages[0]!.ctxmem).toEqual({ kind: 'summary', replaces: ['m1'] });
  });

  it('reads AI SDK 4 shapes as AI SDK 5 ones', () => {
    const core = fromModelMessages([
      {
        role: 'user',
        content: [{ type: 'image', image: 'AAAA', mimeType: 'image/png' }],
        experimental_providerMetadata: { openai: { store: true } },
      },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'plan', signature: 'sig' },
          { type: 'redacted-reasoning', data: 'opaque' },
          { type: 'tool-call', toolCallId: 'a', toolName: 'f', args: { q: 1 } },
          { type: 'tool-call', toolCallId: 'b', toolName: 'g', args: {} },
          { type: 'tool-call', toolCallId: 'c', toolName: 'h', args: {} },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'a', toolName: 'f', result: { hits: 2 } },
          { type: 'tool-result', toolCallId: 'b', toolName: 'g', result: 'boom', isError: true },
          {
            type: 'tool-result',
            toolCallId: 'c',
            toolName: 'h',
            result: null,
            experimental_content: [
              { type: 'text', text: 'shot' },
              { type: 'image', data: 'BBBB', mimeType: 'image/jpeg' },
            ],
          },
        ],
      },
    ]);
    expect(core).toEqual([
      {
        role: 'user',
        content: [{ type: 'image', image: 'AAAA', mediaType: 'image/png' }],
        providerOptions: { openai: { store: true } },
      },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'plan', providerOptions: { anthropic: { signature: 'sig' } } },
          {
            type: 'reasoning',
            text: '',
            providerOptions: { anthropic: { redactedData: 'opaque' } },
          },
          { type: 'tool-call', toolCallId: 'a', toolName: 'f', input: { q: 1 } },
          { type: 'tool-call', toolCallId: 'b', toolName: 'g', input: {} },
          { type: 'tool-call', toolCallId: 'c', toolName: 'h', input: {} },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'a',
            toolName: 'f',
            output: { type: 'json', value: { hits: 2 } },
          },
          {
            type: 'tool-result',
            toolCallId: 'b',
            toolName: 'g',
            output: { type: 'error-text', value: 'boom' },
          },
          {
            type: 'tool-result',
            toolCallId: 'c',
            toolName: 'h',
            output: {
              type: 'content',
              value: [
                { type: 'text', text: 'shot' },
                { type: 'media', data: 'BBBB', mediaType: 'image/jpeg' },
              ],
            },
          },
        ],
      },
    ]);
  });

  it('accepts a history that is still waiting for tool results', () => {
    const history = [
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'a', toolName: 'f', input: {} }],
      },
    ];
    expect(fromModelMessages(history)).toEqual(history);
  });

  it.each<[string, unknown, string]>([
    ['input that is not an array', 'hello', 'messages'],
    ['an unknown role', [{ role: 'model', content: 'x' }], 'messages[0].role'],
    [
      'an OpenAI-style tool message',
      [{ role: 'tool', tool_call_id: 'a', content: 'x' }],
      'messages[0].content',
    ],
    [
      'a tool call without id',
      [{ role: 'assistant', content: [{ type: 'tool-call', toolName: 'f', input: {} }] }],
      'messages[0].content[0].toolCallId',
    ],
    [
      'NaN in a JSON output',
      [
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'a',
              toolName: 'f',
              output: { type: 'json', value: Number.NaN },
            },
          ],
        },
      ],
      'messages[0].content[0].output.value',
    ],
  ])('rejects %s with its path', (_case, input, path) => {
    let error: unknown;
    try {
      fromModelMessages(input);
    } catch (caught) {
      error = caught;
    }
    expect(InvalidMessageError.isInstance(error)).toBe(true);
    expect((error as InvalidMessageError).path).toBe(path);
  });
});

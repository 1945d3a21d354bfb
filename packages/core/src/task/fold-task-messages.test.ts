import { describe, expect, it } from 'vitest';
import type { Message } from '../contracts/index.js';
import { InvalidArgumentError } from '../errors/index.js';
import { checkToolPairing } from '../messages/index.js';
import { foldTaskMessages } from './index.js';

const conversation: Message[] = [
  { role: 'system', content: 'You are helpful.' },
  { role: 'user', content: 'What is the weather in Paris and Rome?' },
  {
    role: 'assistant',
    content: [
      { type: 'reasoning', text: 'I should call the weather tool twice.' },
      { type: 'tool-call', toolCallId: 'a', toolName: 'weather', input: { city: 'Paris' } },
      { type: 'tool-call', toolCallId: 'b', toolName: 'weather', input: { city: 'Rome' } },
    ],
  },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'a',
        toolName: 'weather',
        output: { type: 'text', value: '18°C' },
      },
      {
        type: 'tool-result',
        toolCallId: 'b',
        toolName: 'weather',
        output: { type: 'text', value: '24°C' },
      },
    ],
  },
  { role: 'assistant', content: [{ type: 'text', text: 'Paris is 18°C and Rome is 24°C.' }] },
  { role: 'user', content: 'Thanks!' },
];

describe('foldTaskMessages', () => {
  it('replaces the task steps with one answer and keeps the rest', () => {
    const folded = foldTaskMessages(conversation, { start: 2, end: 5 });
    expect(folded).toHaveLength(4);
    expect(folded[2]).toEqual({
      role: 'assistant',
      content: '[Task steps folded; tools used: weather]\n\nParis is 18°C and Rome is 24°C.',
    });
    expect(folded[3]).toBe(conversation[5]);
    expect(checkToolPairing(folded)).toEqual([]);
  });

  it('does not modify its input', () => {
    const copy = structuredClone(conversation);
    foldTaskMessages(conversation, { start: 2, end: 5, noteTools: false });
    expect(conversation).toEqual(copy);
  });

  it('rejects ranges that are out of bounds or span a user turn', () => {
    expect(() => foldTaskMessages(conversation, { start: 4, end: 2 })).toThrow(
      InvalidArgumentError,
    );
    expect(() => foldTaskMessages(conversation, { start: 2, end: 6 })).toThrow(/user messages/);
    expect(() => foldTaskMessages(conversation, { start: -1 })).toThrow(InvalidArgumentError);
  });

  it('leaves the conversation unchanged for an empty task', () => {
    expect(foldTaskMessages(conversation, { start: 2, end: 2 })).toEqual(conversation);
  });
});

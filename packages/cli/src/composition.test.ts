import type { Message, TokenCounter } from '@ctxmem/core';
import { messageText } from '@ctxmem/core';
import { describe, expect, it } from 'vitest';
import { measureComposition, renderComposition } from './index.js';

// One token per character keeps the expectations readable.
const counter: TokenCounter = {
  name: 'characters',
  promptOverhead: 3,
  countText: (text) => text.length,
  countMessage: (message) => messageText(message).length + 4,
  countMessages(messages) {
    return messages.reduce((sum, message) => sum + this.countMessage(message), 0) + 3;
  },
};

const messages: Message[] = [
  { role: 'system', content: 'rules' },
  { role: 'system', content: '## Context Summary', ctxmem: { kind: 'summary' } },
  { role: 'user', content: 'hello' },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'ok' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'grep', input: { q: 'x' } },
    ],
  },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'c1',
        toolName: 'grep',
        output: { type: 'text', value: 'found' },
      },
    ],
  },
  { role: 'assistant', content: 'done' },
];

describe('measureComposition', () => {
  it('attributes every token to one category and adds up to the messages', () => {
    const composition = measureComposition(messages, counter);
    expect(composition).toEqual({
      system: 5 + 4,
      summary: 18 + 4,
      toolCalls: 4 + 9, // "grep" + '{"q":"x"}'
      toolResults: 5 + 4,
      user: 5 + 4,
      // "ok\ngrep({"q":"x"})" = 18 characters + 4 overhead, minus the 13 of the call; then "done".
      assistant: 18 + 4 - 13 + 4 + 4,
    });
    const sum = Object.values(composition).reduce((total, value) => total + value, 0);
    expect(sum).toBe(counter.countMessages(messages) - counter.promptOverhead);
  });

  it('counts a tool-run record as tool calls', () => {
    const record: Message = {
      role: 'assistant',
      content: 'ran grep 5 times',
      ctxmem: { kind: 'tool-run-record' },
    };
    expect(measureComposition([record], counter).toolCalls).toBe(16 + 4);
  });
});

describe('renderComposition', () => {
  it('renders one line per category plus a total, with bars scaled to the largest total', () => {
    const before = measureComposition(messages, counter);
    const lines = renderComposition(before, { ...before, toolResults: 0 }, { width: 20 });
    expect(lines).toHaveLength(8);
    expect(lines[0]).toMatch(/before.*after/);
    expect(lines.find((line) => line.trimStart().startsWith('tool results'))).toMatch(
      /9\s+.*█.*\s0\s+0%$/,
    );
    expect(lines.at(-1)).toMatch(/^total\s+79\s+70$/);
  });

  it('renders a single column without an after composition', () => {
    const lines = renderComposition(measureComposition(messages, counter));
    expect(lines[0]).toMatch(/tokens\s+share/);
    expect(lines.at(-1)).toMatch(/^total\s+79$/);
  });
});

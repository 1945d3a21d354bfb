import { describe, expect, it } from 'vitest';
import type { Message } from '../contracts/index.js';
import { labelledMessageText, messageText } from './index.js';

describe('messageText and labelledMessageText', () => {
  const step: Message = {
    role: 'assistant',
    content: [
      { type: 'reasoning', text: 'Look it up.' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'search', input: { q: 'x' } },
    ],
  };
  const result: Message = {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'c1',
        toolName: 'search',
        output: { type: 'text', value: 'found' },
      },
    ],
  };

  it('reads the same parts, and only the labelled form marks what each one is', () => {
    expect(messageText(step)).toBe('Look it up.\nsearch({"q":"x"})');
    expect(labelledMessageText(step)).toBe(
      '[reasoning] Look it up.\n[tool call] search({"q":"x"})',
    );
    expect(messageText(result)).toBe('found');
    expect(labelledMessageText(result)).toBe('[tool result search] found');
    expect(labelledMessageText({ role: 'user', content: 'hi' })).toBe('hi');
  });
});

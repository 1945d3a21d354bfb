import { describe, expect, it } from 'vitest';
import { createChat, demoQuestions } from './chat.js';

describe('langchain-chain example', () => {
  it('runs offline and prints each compaction as it happens', async () => {
    const lines: string[] = [];
    const chat = createChat({ env: {}, print: (line) => lines.push(line) });
    expect(chat.real).toBe(false);
    for (const question of demoQuestions(16)) {
      const answer = await chat.send(question);
      expect(answer).toContain(question);
    }
    await chat.idle();
    const compactions = lines.filter((line) => line.includes('ctxmem compacted'));
    expect(compactions.length).toBeGreaterThanOrEqual(1);
    expect(compactions.length).toBeLessThan(16);
    // The full history stays in the chat history; the chain saw the compressed one.
    expect(await chat.memory.chatHistory.getMessages()).toHaveLength(32);
    const history = await chat.memory.compressedMessages();
    expect(history.length).toBeLessThan(32);
    expect(history[0]!.text).toContain('## Context Summary');
  });
});

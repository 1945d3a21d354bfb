import { describe, expect, it } from 'vitest';
import { createChat, demoQuestions } from './chat.js';

describe('ai-sdk-chat example', () => {
  it('runs offline and prints each compaction as it happens', async () => {
    const lines: string[] = [];
    const chat = createChat({ env: {}, print: (line) => lines.push(line) });
    expect(chat.real).toBe(false);
    for (const question of demoQuestions(12)) {
      const answer = await chat.send(question);
      expect(answer).toContain('From the runbook');
    }
    await chat.idle();
    const compactions = lines.filter((line) => line.includes('ctxmem compacted'));
    expect(compactions.length).toBeGreaterThanOrEqual(1);
    expect(compactions.length).toBeLessThan(12);
  });
});

import { describe, expect, it } from 'vitest';
import { createAgentSession, demoQuestions } from './agent.js';

describe('langchain-agent example', () => {
  it('runs offline and prints each compaction as it happens', async () => {
    const lines: string[] = [];
    const session = createAgentSession({ env: {}, print: (line) => lines.push(line) });
    expect(session.real).toBe(false);
    for (const question of demoQuestions(15)) {
      const answer = await session.send(question);
      expect(answer).toContain('From the runbook');
    }
    await session.idle();
    const compactions = lines.filter((line) => line.includes('ctxmem compacted'));
    expect(compactions.length).toBeGreaterThanOrEqual(1);
    expect(compactions.length).toBeLessThan(15);
    // The compaction lives in the agent state: the summary first, far fewer than 15 × 4 messages.
    expect(session.messages[0]!.text).toContain('## Context Summary');
    expect(session.messages.length).toBeLessThan(60);
  });
});

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
    // The agent state keeps the conversation as it happened; the model got the compacted view,
    // the summary folded into its one system message.
    expect(session.messages).toHaveLength(15 * 4);
    expect(session.lastPrompt[0]!.text).toContain('## Context Summary');
    expect(session.lastPrompt.length).toBeLessThan(60);
  });
});

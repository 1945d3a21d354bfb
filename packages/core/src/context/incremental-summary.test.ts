import { describe, expect, it } from 'vitest';
import type { CompleteRequest, Message } from '../contracts/index.js';
import { createTokenCounter } from '../tokens/index.js';
import { createContextManager } from './index.js';

/**
 * A faithful summarizer model: it keeps every bullet of the previous summary and adds one key
 * fact per new message. Whatever it loses, ctxmem lost: the previous summary it was given.
 */
function faithfulModel() {
  let calls = 0;
  const complete = async ({ prompt }: CompleteRequest) => {
    calls++;
    const [previousPart = '', newPart = ''] = prompt.split(/\nNew messages[^\n]*:\n/);
    const kept = previousPart
      .split('\n')
      .filter((line) => line.startsWith('- '))
      .map((line) => line.slice(2));
    const added = newPart
      .split('\n')
      .map((line) => /^\[\d+\] user: (FACT .*)$/.exec(line)?.[1])
      .filter((fact): fact is string => fact !== undefined);
    const keyFacts = [...new Set([...kept, ...added])];
    const summary = {
      goal: [],
      background: [],
      keyFacts,
      constraints: [],
      decisions: [],
      todos: [],
      snippets: [],
    };
    return { text: JSON.stringify({ summary, memories: [] }), finishReason: 'stop' };
  };
  return { complete, calls: () => calls };
}

describe('incremental re-summarization', () => {
  it('keeps every fact of the first round through 10 re-summarizations', async () => {
    const counter = createTokenCounter();
    const model = faithfulModel();
    const compactions: number[] = [];
    const manager = createContextManager({
      contextWindow: 4_000,
      counter,
      modelSummarizer: { complete: model.complete, contextWindow: 32_000 },
      onEvent: (event) => {
        if (event.type === 'compaction') compactions.push(event.report.tokensAfter);
      },
    });
    const firstRound = ['FACT the deploy key is K-7731', 'FACT the staging host is st-04'];
    const history: Message[] = [{ role: 'system', content: 'You are an operations agent.' }];
    let prompt: Message[] = [];
    for (let turn = 0; compactions.length < 11 && turn < 400; turn++) {
      const fact = turn < firstRound.length ? firstRound[turn]! : `FACT note ${turn} is N-${turn}`;
      history.push({ role: 'user', content: fact });
      history.push({
        role: 'assistant',
        content: `Noted. ${'We keep going with the plan. '.repeat(12)}`,
      });
      history.push({ role: 'user', content: `Question ${turn}?` });
      prompt = (await manager.prepare(history)).messages;
      history.pop();
    }
    expect(compactions.length).toBeGreaterThanOrEqual(11);
    expect(model.calls()).toBeGreaterThanOrEqual(10);
    const summary = prompt.find((message) => message.ctxmem?.kind === 'summary');
    for (const fact of firstRound) expect(summary?.content).toContain(fact.slice(5));
  });
});

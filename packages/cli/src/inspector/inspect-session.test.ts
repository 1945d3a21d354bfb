import {
  type CallRecord,
  createContextManager,
  createInMemoryHistoryStore,
  createInMemoryMemoryStore,
  createInMemoryOffloadStore,
  createMemorySearch,
  createTokenCounter,
} from '@ctxmem/core';
import { describe, expect, it } from 'vitest';
import { agentConversation } from './fixture.test-helper.js';
import { callPoints, inspectSession, renderInspectorHtml } from './index.js';

const counter = createTokenCounter();
const scope = { sessionId: 'recorded' };

async function storedSession(options: { recordedCalls?: number } = {}) {
  const historyStore = createInMemoryHistoryStore();
  const offloadStore = createInMemoryOffloadStore();
  const manager = createContextManager({
    contextWindow: 6_000,
    counter,
    historyStore,
    offloadStore,
    ...options,
  });
  const messages = agentConversation();
  const results = [];
  for (const end of callPoints(messages)) {
    results.push(await manager.prepare(messages.slice(0, end), { scope }));
  }
  return { historyStore, offloadStore, results };
}

describe('inspectSession', () => {
  it('shows the recorded calls as they were prepared, compactions where they happened', async () => {
    const { historyStore, offloadStore, results } = await storedSession();
    const inspection = await inspectSession({
      historyStore,
      offloadStore,
      scope,
      counter,
      // A different window than the session's: recorded calls keep their own figures.
      contextWindow: 100_000,
      title: 'recorded',
    });
    const recorded = (await historyStore.getState(scope))?.calls ?? [];
    expect(inspection.timeline).toBe('recorded');
    expect(inspection.calls).toHaveLength(recorded.length);
    inspection.calls.forEach((call, index) => {
      const result = results[index]!;
      expect(call.tokens).toBe(result.tokens);
      expect(call.contextWindow).toBe(6_000);
      expect(call.budgetTokens).toBe(result.budget.budgetTokens);
      expect(call.compaction !== undefined).toBe(result.compacted);
      if (result.report) {
        expect(call.compaction?.strategies.map((strategy) => strategy.strategy)).toEqual(
          result.report.strategies.map((strategy) => strategy.strategy),
        );
      }
    });
    // The stored summary belongs to the latest recorded compaction.
    const last = inspection.calls.findLast((call) => call.compaction);
    expect(last?.summary).toBeDefined();
    // Later calls than the latest compaction are not stored yet, and the page says so.
    const later = results.length - recorded.length;
    if (later > 0) expect(inspection.notes.join(' ')).toMatch(/later messages/);
  });

  it('shows the content and score of the cards a recorded call injected, from the memory store', async () => {
    const historyStore = createInMemoryHistoryStore();
    const memoryStore = createInMemoryMemoryStore();
    const [card] = await memoryStore.add(scope, [
      { type: 'constraint', content: 'The build deadline is Friday <b>sharp</b>' },
    ]);
    const manager = createContextManager({
      contextWindow: 6_000,
      counter,
      historyStore,
      memory: { search: createMemorySearch({ store: memoryStore }) },
    });
    const messages = [
      ...agentConversation(),
      { role: 'user' as const, content: 'When is the build deadline?' },
    ];
    // Forced at the end, so the state write carries the calls that injected the card.
    await manager.prepare(messages, { scope, force: true });
    const inspection = await inspectSession({
      historyStore,
      offloadStore: createInMemoryOffloadStore(),
      memoryStore,
      scope,
      counter,
      contextWindow: 6_000,
      title: 'memories',
    });
    const shown = inspection.calls.at(-1)!.memoryCards;
    expect(shown).toEqual([
      {
        id: card!.id,
        type: 'constraint',
        content: 'The build deadline is Friday <b>sharp</b>',
        score: expect.any(Number),
        injected: true,
      },
    ]);
    expect(renderInspectorHtml(inspection)).toContain(
      'The build deadline is Friday &lt;b&gt;sharp&lt;/b&gt;',
    );
  });

  it('replays a session stored without records', async () => {
    const { historyStore, offloadStore } = await storedSession({ recordedCalls: 0 });
    const inspection = await inspectSession({
      historyStore,
      offloadStore,
      scope,
      counter,
      contextWindow: 6_000,
      title: 'replayed',
    });
    expect(inspection.timeline).toBeUndefined();
    expect(inspection.calls).toHaveLength(callPoints(agentConversation()).length);
    expect(inspection.notes.join(' ')).toMatch(/replays the \d+ stored messages/);
  });

  it('renders what a record holds as text, whatever the store returned', async () => {
    const historyStore = createInMemoryHistoryStore();
    const hostile = '"><img src=x onerror="window.__xss = 3">';
    const call: CallRecord = {
      at: '2026-01-01T00:00:00.000Z',
      historyMessages: 2,
      tokensBefore: 900,
      tokens: 400,
      budget: {
        contextWindow: 6_000,
        budgetTokens: 5_000,
        triggerTokens: 4_000,
        targetTokens: 3_000,
      },
      composition: {
        system: 10,
        summary: 90,
        memories: 50,
        history: 200,
        compressed: 30,
        toolResults: 20,
        toolDefinitions: 40,
        reserved: 0,
        outputReserve: 1_000,
      },
      compaction: {
        source: 'compacted',
        trigger: 'threshold',
        strategies: [],
        summarizerCalls: 1,
        summarizer: `<script>${hostile}</script>`,
        offloadIds: [],
      },
      memories: [{ id: hostile, score: 0.5 }],
      offloadIds: [],
    };
    await historyStore.setState(
      scope,
      { messages: [{ role: 'user', content: 'hi' }], summarizedCount: 0, cycle: 1, calls: [call] },
      0,
    );
    const inspection = await inspectSession({
      historyStore,
      offloadStore: createInMemoryOffloadStore(),
      scope,
      counter,
      contextWindow: 6_000,
      title: 'hostile',
    });
    const html = renderInspectorHtml(inspection);
    expect(html).toContain('<section id="timeline" data-source="recorded">');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<script>');
    expect(html).toContain('&quot;&gt;&lt;img src=x');
    expect(html).toContain('The prompt itself is not stored');
    expect(html).toMatch(/<td class="n">0\.500<\/td>/);
  });
});

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
import {
  agentConversation,
  conversationWithLaterCalls,
  inspectStoredSession,
  refusingSummarizer,
  type StoredSessionOptions,
} from './fixture.test-helper.js';
import { callPoints, inspectSession, renderInspectorHtml } from './index.js';

const counter = createTokenCounter();
const scope = { sessionId: 'recorded' };

/** The fixture session stored, inspected with another window: recorded calls keep their own. */
const storedSession = (options: StoredSessionOptions = {}) =>
  inspectStoredSession({ counter, scope, inspectWindow: 100_000, title: 'recorded', ...options });

describe('inspectSession', () => {
  it('shows the recorded calls as they were prepared, compactions where they happened, then the later calls rebuilt', async () => {
    const { historyStore, results, inspection } = await storedSession({
      messages: conversationWithLaterCalls(),
    });
    const recorded = (await historyStore.getState(scope))?.calls ?? [];
    expect(inspection.timeline).toBe('recorded');
    // Every call the host made is on the page: the stored records, then the rebuilt ones.
    expect(recorded.length).toBeLessThan(results.length);
    expect(inspection.calls).toHaveLength(results.length);
    inspection.calls.forEach((call, index) => {
      const result = results[index]!;
      expect(call.origin).toBe(index < recorded.length ? 'recorded' : 'reconstructed');
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
    // A rebuilt call shows the history messages it added since the call before.
    const rebuilt = inspection.calls.filter((call) => call.origin === 'reconstructed');
    expect(rebuilt.at(-1)!.messages.map((message) => message.text)).toEqual([
      'Yes, module-8 is the slowest.',
      'Note it for Friday.',
    ]);
    expect(inspection.notes.join(' ')).toMatch(
      new RegExp(
        `The ${rebuilt.length} calls after the latest stored compaction are reconstructed`,
      ),
    );
    const html = renderInspectorHtml(inspection);
    expect(html.match(/<tr data-origin="reconstructed">/g)).toHaveLength(rebuilt.length);
    expect(html).toContain('Reconstructed from the store, not recorded');
  });

  it('shows why the summarizer fell back, from the kind the record stored', async () => {
    const { historyStore, inspection } = await storedSession({
      summarizer: refusingSummarizer(counter),
      summarizerCircuitBreaker: { failures: 2 },
    });
    const stored = JSON.stringify((await historyStore.getState(scope))?.calls);
    const kinds = inspection.calls.flatMap((call) =>
      call.fallbacks.map((fallback) => fallback.kind),
    );
    // The model refused; after two failures the circuit breaker stopped calling it.
    expect(kinds[0]).toBe('refusal');
    expect(kinds).toContain('circuit-open');
    const html = renderInspectorHtml(inspection);
    expect(html).toContain(
      '<span class="fallback" data-kind="refusal">model failed: refusal (CtxmemSummarizerError)</span>',
    );
    expect(html).toContain('data-kind="circuit-open"');
    // The refusal's words are in neither the store nor the page.
    expect(stored).not.toContain('sorry');
    expect(html).not.toContain('sorry');
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
    const { inspection } = await storedSession({ recordedCalls: 0, inspectWindow: 6_000 });
    expect(inspection.calls.every((call) => call.origin === 'replay')).toBe(true);
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
        strategies: [
          {
            strategy: 'summarize-rounds',
            applied: true,
            tokensBefore: 900,
            tokensAfter: 400,
            messagesAffected: 4,
            summarizerCalls: 1,
            // Stored before fallbacks kept their kind.
            fallback: { from: 'model' },
          },
        ],
        summarizerCalls: 1,
        summarizer: `<script>${hostile}</script>`,
        offloadIds: [],
      },
      memories: [{ id: hostile, score: 0.5 }],
      offloadIds: [],
    };
    // A later call the store has no record of, with hostile content and more than the budget.
    await historyStore.append(scope, [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
      { role: 'user', content: `${hostile} ${'build log line '.repeat(2_000)}` },
    ]);
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
    expect(html).toContain(
      '<span class="fallback" data-kind="">model failed: reason not recorded</span>',
    );
    expect(inspection.calls.map((inspected) => inspected.origin)).toEqual([
      'recorded',
      'reconstructed',
    ]);
    expect(inspection.notes.join(' ')).toMatch(/1 reconstructed calls exceed their budget/);
  });
});

import { describe, expect, it } from 'vitest';
import { resolveBudget } from '../budget/index.js';
import type { Message, SummarizeRequest, Summarizer } from '../contracts/index.js';
import { createInMemoryHistoryStore } from '../history/index.js';
import { createInMemoryOffloadStore } from '../offload/index.js';
import { createExtractiveSummarizer } from '../summarize/index.js';
import { sharedConversation } from '../test/shared-conversation.js';
import { createTokenCounter } from '../tokens/index.js';
import {
  type CompactionInput,
  createCompactionScheduler,
  matchesPrefix,
} from './compaction-scheduler.js';
import { hashFingerprints, messageFingerprint } from './message-fingerprint.js';
import { createSessionPersistence, type SessionState } from './session-state.js';

const counter = createTokenCounter();
const budget = resolveBudget({ contextWindow: 6_000 });
const scope = { sessionId: 'scheduled' };

function scheduler(options: { backgroundCompaction?: boolean } = {}) {
  const inner = createExtractiveSummarizer({ counter });
  const calls: SummarizeRequest[] = [];
  const summarizer: Summarizer = {
    name: 'counting',
    summarize: (request) => {
      calls.push(request);
      return inner.summarize(request);
    },
  };
  const background: Promise<unknown>[] = [];
  const store = createInMemoryHistoryStore();
  const created = createCompactionScheduler({
    counter,
    summarizer,
    extractive: inner,
    offloadStore: createInMemoryOffloadStore(),
    history: 'compressed',
    repairInput: true,
    contextWindow: 6_000,
    backgroundCompaction: options.backgroundCompaction ?? false,
    cacheSize: 10,
    persistence: createSessionPersistence(store),
    storeCards: async () => undefined,
    track: (run) => background.push(run),
  });
  return { ...created, calls, store, settled: () => Promise.allSettled(background) };
}

function inputFor(state: SessionState, messages: readonly Message[]): CompactionInput {
  return {
    scope,
    key: 'scheduled',
    state,
    messages,
    fingerprints: messages.map(messageFingerprint),
    budget,
  };
}

describe('matchesPrefix and hashFingerprints', () => {
  it('matches an entry only on the exact prefix it covers', () => {
    const entry = { covered: ['a', 'b'], output: [], cycle: 1, version: 0 };
    expect(matchesPrefix(entry, ['a', 'b', 'c'])).toBe(true);
    expect(matchesPrefix(entry, ['a', 'x', 'c'])).toBe(false);
    expect(matchesPrefix(entry, ['a'])).toBe(false);
    expect(hashFingerprints(['a', 'b'])).not.toBe(hashFingerprints(['b', 'a']));
    expect(hashFingerprints(['ab'])).not.toBe(hashFingerprints(['a', 'b']));
  });
});

describe('createCompactionScheduler', () => {
  it('compacts over the trigger, leaves the write to commit, and reuses the prefix after', async () => {
    const { resume, fitPrompt, commit, calls, store } = scheduler();
    const state: SessionState = {};
    const messages = sharedConversation(20);
    const input = inputFor(state, messages);
    const resumed = await resume(input);
    expect(resumed.tokens).toBeGreaterThan(budget.triggerTokens);
    const fitted = await fitPrompt(input, resumed, { force: false, abortSignal: undefined });
    expect(fitted.source).toBe('compacted');
    expect(fitted.tokens).toBeLessThanOrEqual(budget.budgetTokens);
    expect(calls.length).toBeGreaterThan(0);
    expect(await store.getState(scope)).toBeUndefined();
    await commit(scope, state, fitted.unwritten!);
    expect((await store.getState(scope))?.version).toBe(1);
    expect(state.entry?.version).toBe(1);

    // The next call starts from the compaction: only the new messages are added.
    const next = [...messages, { role: 'user', content: 'One more question.' } as Message];
    const again = await resume(inputFor(state, next));
    expect(again.entry).toBe(state.entry);
    expect(again.tokens).toBeLessThan(budget.triggerTokens);
  });

  it('prepares the next compaction in the background when asked, and adopts it at the trigger', async () => {
    const { resume, fitPrompt, commit, calls, settled } = scheduler({ backgroundCompaction: true });
    const state: SessionState = {};
    const conversation = sharedConversation(30);
    let started = false;
    let adopted = false;
    for (let end = 2; end <= conversation.length && !adopted; end += 2) {
      const input = inputFor(state, conversation.slice(0, end));
      const before = calls.length;
      const fitted = await fitPrompt(input, await resume(input), {
        force: false,
        abortSignal: undefined,
      });
      if (fitted.source === 'background') {
        adopted = true;
        // Adopting costs the turn no summarizer call: it was made in the background.
        expect(calls.length).toBe(before);
        expect(fitted.report).toBeDefined();
      }
      if (fitted.unwritten) await commit(scope, state, fitted.unwritten);
      if (fitted.startBackground) {
        started = true;
        fitted.startBackground();
        await settled();
      }
    }
    expect(started).toBe(true);
    expect(adopted).toBe(true);
  });
});

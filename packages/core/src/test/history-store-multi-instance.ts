import { expect, it } from 'vitest';
import { createContextManager } from '../context/index.js';
import type {
  HistoryStore,
  Message,
  Scope,
  SummarizeRequest,
  Summarizer,
} from '../contracts/index.js';
import { ConflictError, InvalidArgumentError } from '../errors/index.js';
import { countHistory } from '../history/index.js';
import { createExtractiveSummarizer } from '../summarize/index.js';
import { createTokenCounter } from '../tokens/index.js';
import {
  auditStoredConversation,
  playSharedConversation,
  sharedConversation,
} from './shared-conversation.js';

const counter = createTokenCounter();
const TURNS = 30;

/** The shared conversation as turns: a user and an assistant message each. */
function conversation(turns = TURNS): Array<{ user: Message; assistant: Message }> {
  const all = sharedConversation(turns);
  return Array.from({ length: turns }, (_, turn) => ({
    user: all[1 + 2 * turn]!,
    assistant: all[2 + 2 * turn]!,
  }));
}

/** Wraps the extractive summarizer to count calls. */
function countingSummarizer() {
  const inner = createExtractiveSummarizer({ counter });
  const calls: SummarizeRequest[] = [];
  const summarizer: Summarizer = {
    name: 'counting',
    summarize(request) {
      calls.push(request);
      return inner.summarize(request);
    },
  };
  return { summarizer, calls };
}

function createManagers(store: HistoryStore, instances: number, summarizer: Summarizer) {
  return Array.from({ length: instances }, () =>
    createContextManager({ contextWindow: 6_000, counter, summarizer, historyStore: store }),
  );
}

/** The stored history must be exactly what was sent: no duplicates, no losses, in order. */
async function expectStoredExactly(store: HistoryStore, scope: Scope, sent: readonly Message[]) {
  const stored = await store.read(scope);
  expect(stored.map((entry) => entry.index)).toEqual(sent.map((_, index) => index));
  expect(stored.map((entry) => entry.message.content)).toEqual(
    sent.map((message) => message.content),
  );
  expect(await countHistory(store, scope)).toBe(sent.length);
}

/**
 * Plays the conversation, each turn served by `pick(turn)` managers at once (each receiving the
 * whole conversation, as instances behind a load balancer do; two at once is a retried or hedged
 * request), then once more so the last reply is recorded.
 */
async function play(
  scope: Scope,
  serve: (turn: number) => ReturnType<typeof createContextManager>[],
  turns = TURNS,
) {
  const history: Message[] = [{ role: 'system', content: 'You plan a software project.' }];
  let compactions = 0;
  for (const [turn, { user, assistant }] of conversation(turns).entries()) {
    history.push(user);
    // New objects each call, as a host that converts its own messages sends them.
    const results = await Promise.all(
      serve(turn).map((manager) => manager.prepare(structuredClone(history), { scope })),
    );
    for (const result of results) {
      expect(result.tokens).toBeLessThanOrEqual(result.budget.budgetTokens);
      if (result.compacted) compactions++;
    }
    history.push(assistant);
  }
  await Promise.all(
    serve(turns).map((manager) => manager.prepare(structuredClone(history), { scope })),
  );
  return { history, compactions };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('Expected the promise to reject.');
}

const user = (content: string, id?: string): Message => ({
  role: 'user',
  content,
  ...(id ? { id } : {}),
});
const assistant = (content: string): Message => ({ role: 'assistant', content });

/**
 * Positional appends (`append(scope, messages, { at })`) and several context managers sharing one
 * store, as instances of an app behind a load balancer do. Part of `testHistoryStore`.
 */
export function positionalAppendScenarios(createStore: () => Promise<HistoryStore>): void {
  const scope: Scope = { userId: 'alice', sessionId: 'shared' };

  it('appends at a position idempotently: stored messages are skipped, the rest appended', async () => {
    const store = await createStore();
    const first = await store.append(scope, [user('q1'), assistant('a1'), user('q2')], { at: 0 });
    expect(first.map((entry) => [entry.index, entry.turn])).toEqual([
      [0, 1],
      [1, 1],
      [2, 2],
    ]);
    // The same messages again (new objects, no ids) plus two new ones.
    const second = await store.append(
      scope,
      [assistant('a1'), user('q2'), assistant('a2'), user('q3')],
      { at: 1 },
    );
    expect(second.map((entry) => [entry.index, entry.turn])).toEqual([
      [1, 1],
      [2, 2],
      [3, 2],
      [4, 3],
    ]);
    // Skipped messages come back as stored, with the id the store gave them.
    expect(second[0]!.message.id).toBe(first[1]!.message.id);
    expect(await countHistory(store, scope)).toBe(5);
    expect(await store.append(scope, [user('q1')], { at: 0 })).toHaveLength(1);
    expect(await store.append(scope, [], { at: 5 })).toEqual([]);
    expect((await store.read(scope)).map((entry) => entry.message.content)).toEqual([
      'q1',
      'a1',
      'q2',
      'a2',
      'q3',
    ]);
  });

  it('matches a stored message by id, and by content when the ids differ', async () => {
    const store = await createStore();
    await store.append(scope, [user('hello', 'provider-1'), user('plain')], { at: 0 });
    const again = await store.append(scope, [user('hello', 'provider-1'), user('plain', 'new')], {
      at: 0,
    });
    expect(again.map((entry) => entry.message.id)[0]).toBe('provider-1');
    expect(await countHistory(store, scope)).toBe(2);
    const image = (): Message => ({
      role: 'user',
      content: [
        { type: 'text', text: 'look' },
        { type: 'image', image: new Uint8Array([1, 2, 3, 250]), mediaType: 'image/png' },
        { type: 'image', image: new URL('https://example.com/a.png') },
      ],
    });
    await store.append(scope, [image()], { at: 2 });
    await store.append(scope, [image()], { at: 2 });
    expect(await countHistory(store, scope)).toBe(3);
  });

  it('rejects a different message at a stored position, and a gap, with ConflictError', async () => {
    const store = await createStore();
    await store.append(scope, [user('q1'), assistant('a1')], { at: 0 });
    const different = await rejection(
      store.append(scope, [user('q1'), assistant('changed'), user('q2')], { at: 0 }),
    );
    expect(ConflictError.isInstance(different)).toBe(true);
    expect(different).toMatchObject({ position: 1 });
    const gap = await rejection(store.append(scope, [user('q3')], { at: 3 }));
    expect(ConflictError.isInstance(gap)).toBe(true);
    expect(gap).toMatchObject({ position: 2, expectedVersion: 3, actualVersion: 2 });
    // Nothing of a rejected call is written.
    expect((await store.read(scope)).map((entry) => entry.message.content)).toEqual(['q1', 'a1']);
    for (const at of [-1, 1.5, Number.NaN]) {
      const error = await rejection(store.append(scope, [user('x')], { at }));
      expect(InvalidArgumentError.isInstance(error), String(at)).toBe(true);
    }
  });

  it('stores a history once when many writers append it at the same moment', async () => {
    const store = await createStore();
    const history = Array.from({ length: 20 }, (_, index) =>
      index % 2 === 0 ? user(`q${index}`) : assistant(`a${index}`),
    );
    await store.append(scope, history.slice(0, 4), { at: 0 });
    // Ten writers, each knowing a different part of the same conversation, from the start or
    // from a position already stored, most overlapping.
    await Promise.all(
      Array.from({ length: 10 }, (_, writer) => {
        const at = writer % 5;
        return store.append(scope, structuredClone(history.slice(at, 10 + writer)), { at });
      }),
    );
    const stored = await store.read(scope);
    expect(stored.map((entry) => entry.message.content)).toEqual(
      history.slice(0, 19).map((message) => message.content),
    );
    expect(stored.map((entry) => entry.index)).toEqual(stored.map((_, index) => index));
  });

  for (const instances of [2, 3]) {
    it(`stores each message once when ${instances} managers alternate over ${TURNS} turns, summarizing no more than one`, async () => {
      const store = await createStore();
      const alone = countingSummarizer();
      const [single] = createManagers(store, 1, alone.summarizer);
      const baseline = await play({ ...scope, sessionId: 'alone' }, () => [single!]);

      const shared = countingSummarizer();
      const managers = createManagers(store, instances, shared.summarizer);
      const { history } = await play(scope, (turn) => [managers[turn % instances]!]);
      await expectStoredExactly(store, scope, history);
      expect(alone.calls.length).toBeGreaterThanOrEqual(2);
      // Each instance adopts the summary another one stored instead of summarizing again.
      expect(shared.calls.length).toBeLessThanOrEqual(alone.calls.length);
      expect(baseline.history).toEqual(history);
    });
  }

  it('stores each message once when every turn reaches two managers at the same moment', async () => {
    const store = await createStore();
    const { summarizer } = countingSummarizer();
    const managers = createManagers(store, 3, summarizer);
    const { history } = await play(scope, (turn) => [
      managers[turn % 3]!,
      managers[(turn + 1) % 3]!,
    ]);
    await expectStoredExactly(store, scope, history);
  });

  it('stores each message once when 4 instances each serve every turn, at their own pace', async () => {
    const store = await createStore();
    const { summarizer } = countingSummarizer();
    await Promise.all(
      Array.from({ length: 4 }, () => playSharedConversation(store, { scope, summarizer })),
    );
    expect(await auditStoredConversation(store, scope)).toMatchObject({
      duplicates: 0,
      losses: 0,
      exact: true,
    });
  });

  it('keeps recording when the host edits a stored message or the stored history is gone', async () => {
    const store = await createStore();
    const { summarizer } = countingSummarizer();
    const [manager, other] = createManagers(store, 2, summarizer);
    const system: Message = { role: 'system', content: 'sys' };
    await manager!.prepare([system, user('q1')], { scope });
    await other!.prepare([system, user('q1'), assistant('a1'), user('q2')], { scope });
    // The host regenerated a1 (which the other instance stored): the stored original is kept,
    // and what follows is still recorded.
    const edited = [system, user('q1'), assistant('a1, again'), user('q2'), assistant('a2')];
    await manager!.prepare([...edited, user('q3')], { scope });
    expect((await store.read(scope)).map((entry) => entry.message.content)).toEqual([
      'sys',
      'q1',
      'a1',
      'q2',
      'a2',
      'q3',
    ]);
    // The history was cleared (or expired) under the manager: it is recorded again from the start.
    await store.clear(scope);
    const again = [...edited, user('q3'), assistant('a3'), user('q4')];
    await manager!.prepare(again, { scope });
    expect((await store.read(scope)).map((entry) => entry.message.content)).toEqual(
      again.map((message) => message.content),
    );
  });

  it('reuses the stored summary after a restart mid-conversation, with no summarizer call', async () => {
    const store = await createStore();
    const { summarizer, calls } = countingSummarizer();
    const [before] = createManagers(store, 1, summarizer);
    const half = conversation(TURNS / 2);
    const history: Message[] = [{ role: 'system', content: 'You plan a software project.' }];
    let compacted = false;
    for (const { user: question, assistant: answer } of half) {
      history.push(question);
      compacted =
        (await before!.prepare(structuredClone(history), { scope })).compacted || compacted;
      history.push(answer);
    }
    expect(compacted).toBe(true);
    const summaries = calls.length;
    const state = await store.getState(scope);
    expect(state?.summary).toBeDefined();

    // A new process: nothing in memory, the same store.
    const [after] = createManagers(store, 1, summarizer);
    history.push(user('And what comes next?'));
    const resumed = await after!.prepare(structuredClone(history), { scope });
    expect(calls.length).toBe(summaries);
    expect(resumed.compacted).toBe(false);
    expect(resumed.messages.some((message) => message.ctxmem?.kind === 'summary')).toBe(true);
    await expectStoredExactly(store, scope, history);
  });

  it('stores one summary when two instances compact the same history at once', async () => {
    const store = await createStore();
    const { summarizer, calls } = countingSummarizer();
    const [first, second] = createManagers(store, 2, summarizer);
    const history: Message[] = [{ role: 'system', content: 'You plan a software project.' }];
    for (const { user: question, assistant: answer } of conversation(20)) {
      history.push(question, answer);
    }
    history.push(user('Summarize where we are.'));
    const [alone] = createManagers(store, 1, summarizer);
    await alone!.prepare(structuredClone(history), { scope: { ...scope, sessionId: 'alone' } });
    const once = calls.length;
    const results = await Promise.all(
      [first!, second!].map((manager) => manager.prepare(structuredClone(history), { scope })),
    );
    // Both compact, or the later one adopts what the first stored (when the store serialized them).
    expect(results.some((result) => result.compacted)).toBe(true);
    expect(calls.length - once).toBeLessThanOrEqual(2 * once);
    const state = await store.getState(scope);
    expect(state).toMatchObject({ version: 1, cycle: 1 });
    expect(state?.summary).toBeDefined();
    await expectStoredExactly(store, scope, history);
    // Both carry on from there: one more turn each, still one copy of every message.
    history.push(assistant('Here is where we are.'), user('Thanks.'));
    for (const manager of [first!, second!]) {
      await manager.prepare(structuredClone(history), { scope });
    }
    await expectStoredExactly(store, scope, history);
  });
}

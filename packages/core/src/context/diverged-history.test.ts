import { describe, expect, it } from 'vitest';
import {
  createContextManager,
  createInMemoryHistoryStore,
  createInMemoryOffloadStore,
  type Message,
  type Scope,
} from '../index.js';
import { fillerText } from '../test/index.js';

/**
 * A compaction of a history the stored working state does not cover (an edited or regenerated
 * message before the compacted prefix, or a shorter conversation sent under the same session)
 * replaces the stored state: its write is based on the version in the store, not on "never
 * written", so it is not mistaken for another instance's conflicting write and silently dropped.
 */

const WINDOW = 16_000;
const scope: Scope = { sessionId: 'diverged' };

function conversation(rounds: number, edited = ''): Message[] {
  const messages: Message[] = [{ role: 'system', content: 'You are a careful research agent.' }];
  for (let turn = 1; turn <= rounds; turn++) {
    const text = turn === 2 && edited ? edited : fillerText(turn, 60);
    messages.push(
      { role: 'user', content: `Turn ${turn}: ${text}?` },
      { role: 'assistant', content: fillerText(turn + 1_000, 220) },
    );
  }
  messages.push({ role: 'user', content: `Final question: ${fillerText(9_999, 20)}?` });
  return messages;
}

function setup() {
  const historyStore = createInMemoryHistoryStore();
  const offloadStore = createInMemoryOffloadStore();
  const manager = () =>
    createContextManager({ model: 'gpt-4o', contextWindow: WINDOW, historyStore, offloadStore });
  return { historyStore, manager };
}

describe('a compaction of a history the stored working state does not cover', () => {
  it('is written when an early message was edited (same manager)', async () => {
    const { historyStore, manager } = setup();
    const context = manager();
    const first = await context.prepare(conversation(40), { scope });
    expect(first.compacted).toBe(true);
    const stored = await historyStore.getState(scope);
    expect(stored?.version).toBe(1);

    const edited = conversation(41, 'the edited second question');
    const second = await context.prepare(edited, { scope, force: true });
    expect(second.compacted).toBe(true);
    const written = await historyStore.getState(scope);
    expect(written?.version).toBe(2);
    expect(written?.cycle).toBe(stored!.cycle + 1);
    // The stored working state is the one this call's prompt was built from.
    expect([...written!.messages, ...edited.slice(written!.summarizedCount)]).toEqual(
      second.messages.slice(-(written!.messages.length + edited.length - written!.summarizedCount)),
    );
  });

  it('is written when a restarted process gets a shorter history than the stored state covers', async () => {
    const { historyStore, manager } = setup();
    await manager().prepare(conversation(40), { scope });
    const stored = await historyStore.getState(scope);
    expect(stored!.summarizedCount).toBeGreaterThan(conversation(12).length);

    const restarted = manager();
    const shorter = conversation(12);
    const prepared = await restarted.prepare(shorter, { scope, force: true });
    expect(prepared.compacted).toBe(true);
    const written = await historyStore.getState(scope);
    expect(written?.version).toBe(stored!.version + 1);
    expect(written!.summarizedCount).toBeLessThanOrEqual(shorter.length);
  });

  it('is made afresh, not taken from the stale stored state, when the trigger fires', async () => {
    const { historyStore, manager } = setup();
    const context = manager();
    await context.prepare(conversation(40), { scope });
    const stale = await historyStore.getState(scope);

    const edited = conversation(42, 'the edited second question');
    const prepared = await context.prepare(edited, { scope });
    expect(prepared.compacted).toBe(true);
    const written = await historyStore.getState(scope);
    expect(written?.version).toBe(stale!.version + 1);
    expect(written!.messages).not.toEqual(stale!.messages);
  });

  it('is not served from the stored state after a restart when an early message was edited', async () => {
    const { historyStore, manager } = setup();
    await manager().prepare(conversation(40), { scope });
    const stale = await historyStore.getState(scope);
    expect(stale?.coveredDigest).toEqual(expect.any(String));

    // Same length, one early message edited: the stored count alone would still fit it.
    const edited = conversation(40, 'the edited second question');
    const prepared = await manager().prepare(edited, { scope });
    expect(prepared.compacted).toBe(true);
    const written = await historyStore.getState(scope);
    expect(written?.version).toBe(stale!.version + 1);
    expect(written!.coveredDigest).not.toBe(stale!.coveredDigest);

    // The unedited history after a restart is still served from the stored state, no compaction.
    const { historyStore: otherStore, manager: otherManager } = setup();
    const original = conversation(40);
    await otherManager().prepare(original, { scope });
    const resumed = await otherManager().prepare(original, { scope });
    expect(resumed.compacted).toBe(false);
    expect((await otherStore.getState(scope))?.version).toBe(1);
  });
});

import { describe, expect, it } from 'vitest';
import type { CallRecord, Message } from '../contracts/index.js';
import { createInMemoryHistoryStore } from '../history/index.js';
import { messageFingerprint } from './message-fingerprint.js';
import {
  type CompactionEntry,
  createSessionPersistence,
  createSessionStates,
  type SessionState,
} from './session-state.js';

const scope = { sessionId: 'persisted' };
const history: Message[] = [
  { role: 'user', content: 'one' },
  { role: 'assistant', content: 'two' },
  { role: 'user', content: 'three' },
];
const fingerprints = history.map(messageFingerprint);
const entry: CompactionEntry = {
  covered: fingerprints.slice(0, 2),
  output: [{ role: 'system', content: 'summary of one and two' }],
  cycle: 1,
  version: 0,
};
const call = { historyMessages: 3 } as unknown as CallRecord;

describe('createSessionPersistence', () => {
  it('records the original history once, however often a host resends it', async () => {
    const store = createInMemoryHistoryStore();
    const persistence = createSessionPersistence(store);
    const state: SessionState = {};
    await persistence.recordOriginal(scope, state, history.slice(0, 2));
    await persistence.recordOriginal(scope, state, history);
    await persistence.recordOriginal(scope, state, history);
    // A second process starts from the store's end and skips what is there.
    await persistence.recordOriginal(scope, {}, history);
    expect((await store.read(scope)).map((stored) => stored.message.content)).toEqual([
      'one',
      'two',
      'three',
    ]);
  });

  it('writes an entry with the recorded calls and restores both in another process', async () => {
    const store = createInMemoryHistoryStore();
    const persistence = createSessionPersistence(store);
    const written = await persistence.persistEntry(scope, entry, [call]);
    expect(written.version).toBe(1);
    const state: SessionState = {};
    const restored = await persistence.restoreEntry(scope, state, fingerprints, history);
    expect(restored).toEqual(written);
    expect(state.calls).toEqual([call]);
    // A stored state covering more messages than the host sent is not this history's.
    expect(await persistence.restoreEntry(scope, {}, fingerprints, history.slice(0, 1))).toBe(
      undefined,
    );
  });

  it('lets the first writer win: a stale version is not written, the stored one is adopted', async () => {
    const store = createInMemoryHistoryStore();
    const persistence = createSessionPersistence(store);
    await persistence.persistEntry(scope, entry, []);
    const stale = await persistence.persistEntry(scope, { ...entry, cycle: 9 }, []);
    expect(stale.version).toBe(1);
    expect((await store.getState(scope))?.cycle).toBe(1);
    expect((await store.getState(scope))?.calls).toBeUndefined();
  });

  it('does nothing without a store', async () => {
    const persistence = createSessionPersistence(undefined);
    const state: SessionState = {};
    await persistence.recordOriginal(scope, state, history);
    expect(state.recorded).toBeUndefined();
    expect(await persistence.persistEntry(scope, entry, [call])).toBe(entry);
    expect(await persistence.restoreEntry(scope, state, fingerprints, history)).toBeUndefined();
  });
});

describe('createSessionStates', () => {
  it('keeps one state per key and drops the least recently used past its size', () => {
    const sessions = createSessionStates(2);
    const first = sessions.get('a');
    first.recorded = 1;
    expect(sessions.get('a')).toBe(first);
    sessions.get('b');
    sessions.get('c');
    expect(sessions.get('a')).not.toBe(first);
  });
});

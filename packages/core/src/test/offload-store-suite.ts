import { describe, expect, it } from 'vitest';
import type { Message, OffloadStore, Scope } from '../contracts/index.js';
import {
  InvalidIdError,
  InvalidMessageError,
  NotFoundError,
  ScopeRequiredError,
} from '../errors/index.js';
import type { ScopeField } from '../storage/index.js';
import { createFakeClock, type FakeClock } from './clock.js';

export interface OffloadStoreFactoryOptions {
  clock: FakeClock;
  /** Present when a test needs a multi-user store. */
  requiredScope?: ScopeField[];
}

/** Creates a fresh, empty store for one test. */
export type OffloadStoreFactory = (
  options: OffloadStoreFactoryOptions,
) => OffloadStore | Promise<OffloadStore>;

const alice: Scope = { userId: 'alice', sessionId: 's1' };
const bob: Scope = { userId: 'bob', sessionId: 's1' };

const large = (text: string): Message => ({
  role: 'tool',
  content: [
    {
      type: 'tool-result',
      toolCallId: 'call-1',
      toolName: 'read_file',
      output: { type: 'text', value: text },
    },
  ],
});

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('Expected the promise to reject.');
}

/**
 * The conformance suite every `OffloadStore` runs: content-derived ids, round trip, unknown ids,
 * scope isolation, deletion, validation and concurrent writers in one process.
 */
export function testOffloadStore(name: string, createStore: OffloadStoreFactory): void {
  describe(`OffloadStore conformance: ${name}`, () => {
    const setup = async (requiredScope?: ScopeField[]) => {
      const clock = createFakeClock();
      const store = await createStore({ clock, ...(requiredScope ? { requiredScope } : {}) });
      return { clock, store };
    };

    it('round-trips a message under an id derived from its content', async () => {
      const { store, clock } = await setup();
      const message = large('x'.repeat(6000));
      const id = await store.put(alice, message);
      expect(id).toMatch(/^off_[0-9a-f]{16}$/);
      const record = await store.get(alice, id);
      expect(record).toEqual({ id, message, createdAt: clock.iso() });
    });

    it('gives the same message the same id, whatever its key order, and others a new one', async () => {
      const { store, clock } = await setup();
      const first = await store.put(alice, { role: 'user', content: 'same', id: 'm1' });
      clock.advance(1000);
      const reordered = await store.put(alice, { id: 'm1', content: 'same', role: 'user' });
      expect(reordered).toBe(first);
      // The first write is kept: offloading again does not rewrite it.
      expect((await store.get(alice, first)).createdAt).toBe('2026-01-01T00:00:00.000Z');
      expect(await store.put(alice, { role: 'user', content: 'other', id: 'm1' })).not.toBe(first);
    });

    it('round-trips binary content exactly', async () => {
      const { store } = await setup();
      const bytes = new Uint8Array(256).map((_, index) => index);
      const message: Message = {
        role: 'user',
        content: [{ type: 'file', data: bytes, mediaType: 'application/octet-stream' }],
      };
      const id = await store.put(alice, message);
      const { message: back } = await store.get(alice, id);
      const data = (back.content as Array<{ data: unknown }>)[0]!.data;
      expect(data).toBeInstanceOf(Uint8Array);
      expect([...(data as Uint8Array)]).toEqual([...bytes]);
      const text = await store.put(alice, {
        role: 'user',
        content: [{ type: 'file', data: 'aGVsbG8=', mediaType: 'text/plain' }],
      });
      expect(text).not.toBe(id);
    });

    it('throws NotFoundError for an unknown id and InvalidIdError for a malformed one', async () => {
      const { store } = await setup();
      const unknown = await rejection(store.get(alice, 'off_0123456789abcdef'));
      expect(NotFoundError.isInstance(unknown)).toBe(true);
      expect(unknown).toMatchObject({ id: 'off_0123456789abcdef' });
      for (const id of ['../../etc/passwd', 'off_XYZ', '', 'off_0123456789abcdef0']) {
        expect(InvalidIdError.isInstance(await rejection(store.get(alice, id))), id).toBe(true);
      }
    });

    it('isolates scopes: an id from another scope is not found there', async () => {
      const { store } = await setup();
      const id = await store.put(alice, large('alice only'));
      expect(NotFoundError.isInstance(await rejection(store.get(bob, id)))).toBe(true);
      expect(NotFoundError.isInstance(await rejection(store.get({ userId: 'alice' }, id)))).toBe(
        true,
      );
      await store.delete(bob, id);
      expect((await store.get(alice, id)).message).toEqual(large('alice only'));
      // The same content in two scopes: same id, separate records.
      expect(await store.put(bob, large('alice only'))).toBe(id);
      await store.delete(bob, id);
      expect(NotFoundError.isInstance(await rejection(store.get(bob, id)))).toBe(true);
      expect((await store.get(alice, id)).id).toBe(id);
    });

    it('deletes, and deleting an unknown id is a no-op', async () => {
      const { store } = await setup();
      const id = await store.put(alice, large('bye'));
      await store.delete(alice, id);
      expect(NotFoundError.isInstance(await rejection(store.get(alice, id)))).toBe(true);
      await store.delete(alice, id);
      await store.delete(alice, 'off_ffffffffffffffff');
      expect(InvalidIdError.isInstance(await rejection(store.delete(alice, '../x')))).toBe(true);
    });

    it('rejects malformed messages and unsafe scopes with typed errors', async () => {
      const { store } = await setup();
      const bad = { role: 'user', content: 42 } as unknown as Message;
      expect(InvalidMessageError.isInstance(await rejection(store.put(alice, bad)))).toBe(true);
      expect(
        InvalidIdError.isInstance(await rejection(store.put({ userId: '..' }, large('x')))),
      ).toBe(true);
    });

    it('requires the configured scope fields in multi-user mode', async () => {
      const { store } = await setup(['userId', 'sessionId']);
      const id = await store.put(alice, large('x'));
      for (const call of [
        () => store.put({ userId: 'alice' }, large('x')),
        () => store.get({ userId: 'alice' }, id),
        () => store.delete({ sessionId: 's1' }, id),
      ]) {
        expect(ScopeRequiredError.isInstance(await rejection(call()))).toBe(true);
      }
    });

    it('keeps every message written by many concurrent writers in one process', async () => {
      const { store } = await setup();
      const messages = Array.from({ length: 40 }, (_, index) => large(`payload ${index}`));
      const ids = await Promise.all(messages.map((message) => store.put(alice, message)));
      expect(new Set(ids).size).toBe(messages.length);
      const again = await Promise.all(messages.map((message) => store.put(alice, message)));
      expect(again).toEqual(ids);
      const records = await Promise.all(ids.map((id) => store.get(alice, id)));
      expect(records.map((record) => record.message)).toEqual(messages);
    });
  });
}

import { appendFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scope } from '../contracts/index.js';
import { CorruptDataError, StorageError } from '../errors/index.js';
import { type CorruptionEvent, scopeFolder } from '../storage/index.js';
import { createFileHistoryStore } from './index.js';

let base: string;
let counter = 0;
const scope: Scope = { userId: 'u1', sessionId: 's1' };

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'ctxmem-file-history-'));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

function setup(corruption: 'recover' | 'strict' = 'recover') {
  const root = join(base, `root-${counter++}`);
  const events: CorruptionEvent[] = [];
  const store = createFileHistoryStore({
    root,
    corruption,
    onCorruption: (event) => events.push(event),
  });
  const folder = scopeFolder(root, scope);
  return {
    root,
    store,
    events,
    history: join(folder, 'history.jsonl'),
    state: join(folder, 'state.json'),
  };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('Expected the promise to reject.');
}

const user = (content: string) => ({ role: 'user' as const, content });

describe('file history store', () => {
  it('writes one JSON line per message under the scope folder', async () => {
    const { store, history } = setup();
    await store.append(scope, [user('a'), user('b')]);
    const lines = (await readFile(history, 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[1]!)).toMatchObject({ index: 1, turn: 2, message: { content: 'b' } });
  });

  it('drops a torn last line silently and keeps numbering after it', async () => {
    const { store, history, events } = setup();
    await store.append(scope, [user('a')]);
    await appendFile(history, '{"index":1,"turn":2,"createdAt":"2026');
    expect((await store.read(scope)).map((entry) => entry.message.content)).toEqual(['a']);
    expect(await store.count(scope)).toBe(1);
    const [next] = await store.append(scope, [user('b')]);
    expect(next).toMatchObject({ index: 1, turn: 2 });
    expect((await store.read(scope)).map((entry) => entry.message.content)).toEqual(['a', 'b']);
    expect(events).toEqual([]);
  });

  it('compares a positional append with the tail it overlaps, across many read chunks', async () => {
    const { store, history } = setup();
    // Multi-byte text, so that chunk edges fall inside characters.
    const messages = Array.from({ length: 600 }, (_, index) =>
      user(`é ${index} ${'ü'.repeat(100)}`),
    );
    await store.append(scope, messages);
    expect((await readFile(history)).byteLength).toBeGreaterThan(2 * 64 * 1024);
    const from = 100;
    const again = await store.append(scope, [...messages.slice(from), user('new')], { at: from });
    expect(again.map((entry) => entry.index)).toEqual(
      Array.from({ length: 501 }, (_, offset) => from + offset),
    );
    expect(await store.count(scope)).toBe(601);
    const conflict = await rejection(store.append(scope, [user('different')], { at: 599 }));
    expect(conflict).toMatchObject({ position: 599 });
  });

  it('compares a positional append after a torn last line, and after damage in the tail', async () => {
    const { store, history, events } = setup();
    await store.append(scope, [user('a'), user('b'), user('c')]);
    await appendFile(history, '{"index":3,"turn":4,"createdAt":"2026');
    await store.append(scope, [user('b'), user('c'), user('d')], { at: 1 });
    expect((await store.read(scope)).map((entry) => entry.message.content)).toEqual([
      'a',
      'b',
      'c',
      'd',
    ]);
    expect(events).toEqual([]);
    const lines = (await readFile(history, 'utf8')).split('\n');
    lines[2] = 'damaged';
    await writeFile(history, lines.join('\n'));
    // Only the tail an append overlaps is read: damage before it is not touched.
    const stored = await store.append(scope, [user('d'), user('e')], { at: 3 });
    expect(stored.map((entry) => [entry.index, entry.message.content])).toEqual([
      [3, 'd'],
      [4, 'e'],
    ]);
    expect(events).toEqual([]);
    // A damaged tail: the whole file is read and recovered, then compared; the record lost to
    // the damage cannot be compared, so appending over it conflicts.
    expect(await rejection(store.append(scope, [user('c')], { at: 2 }))).toMatchObject({
      position: 2,
    });
    expect(events).toHaveLength(1);
  });

  it('recovers the readable lines of a damaged file, keeps the damaged copy and reports it', async () => {
    const { store, history, events } = setup();
    await store.append(scope, [user('a'), user('b'), user('c')]);
    const lines = (await readFile(history, 'utf8')).split('\n');
    lines[1] = '{"index":1, this is not json';
    const damaged = lines.join('\n');
    await writeFile(history, damaged);

    const read = await store.read(scope);
    expect(read.map((entry) => [entry.index, entry.message.content])).toEqual([
      [0, 'a'],
      [2, 'c'],
    ]);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ path: history, recoveredRecords: 2, droppedRecords: 1 });
    expect(await readFile(events[0]!.quarantinedPath, 'utf8')).toBe(damaged);
    // Recovered once: the file is healthy again and appends continue after the last index.
    await store.read(scope);
    expect(events).toHaveLength(1);
    expect((await store.append(scope, [user('d')]))[0]!.index).toBe(3);
  });

  it('recovers a damaged last line before appending', async () => {
    const { store, history, events } = setup();
    await store.append(scope, [user('a')]);
    await appendFile(history, 'garbage\n');
    const [next] = await store.append(scope, [user('b')]);
    expect(next!.index).toBe(1);
    expect(events).toHaveLength(1);
  });

  it('throws CorruptDataError in strict mode after recovering', async () => {
    const { store, history, events } = setup('strict');
    await store.append(scope, [user('a'), user('b')]);
    await writeFile(history, `not json\n${(await readFile(history, 'utf8')).split('\n')[1]}\n`);
    const error = await rejection(store.read(scope));
    expect(CorruptDataError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ path: history, recoveredRecords: 1 });
    expect(events).toEqual([]);
    expect((await store.read(scope)).map((entry) => entry.message.content)).toEqual(['b']);
    const files = await readdir(join(history, '..'));
    expect(files.some((file) => file.startsWith('history.jsonl.corrupt-'))).toBe(true);
  });

  it('sets a damaged working state aside and starts again from version 0', async () => {
    const { store, state, events } = setup();
    await store.setState(scope, { summarizedCount: 0, messages: [], cycle: 0 }, 0);
    await writeFile(state, '{"version":1,"state":');
    expect(await store.getState(scope)).toBeUndefined();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ path: state, recoveredRecords: 0 });
    expect(await store.setState(scope, { summarizedCount: 1, messages: [], cycle: 1 }, 0)).toBe(1);
  });

  it('fails with StorageError naming the path when the root is a file', async () => {
    const root = join(base, `blocked-${counter++}`);
    await writeFile(root, 'not a folder');
    const store = createFileHistoryStore({ root });
    const error = await rejection(store.append(scope, [user('a')]));
    expect(StorageError.isInstance(error)).toBe(true);
    expect((error as StorageError).path).toContain(root);
    expect(
      StorageError.isInstance(
        await rejection(store.setState(scope, { summarizedCount: 0, messages: [], cycle: 0 }, 0)),
      ),
    ).toBe(true);
  });

  it.skipIf(process.getuid?.() === 0)(
    'fails with StorageError when the folder is not writable',
    async () => {
      // Root ignores permission bits, so this only runs as an ordinary user.
      const { chmod, mkdir } = await import('node:fs/promises');
      const root = join(base, `readonly-${counter++}`);
      await mkdir(root);
      await chmod(root, 0o500);
      try {
        const error = await rejection(createFileHistoryStore({ root }).append(scope, [user('a')]));
        expect(StorageError.isInstance(error)).toBe(true);
        expect((error as StorageError).message).toContain('permission denied');
      } finally {
        await chmod(root, 0o700);
      }
    },
  );
});

import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message, Scope } from '../contracts/index.js';
import { CorruptDataError, NotFoundError } from '../errors/index.js';
import { type CorruptionEvent, scopeFolder } from '../storage/index.js';
import { createFileOffloadStore, offloadId } from './index.js';
import { contentAddressedPut } from './offload-id.js';

let base: string;
let counter = 0;
const scope: Scope = { sessionId: 's1' };
const message: Message = { role: 'assistant', content: 'a long answer '.repeat(500) };

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'ctxmem-file-offload-'));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

function setup(corruption: 'recover' | 'strict' = 'recover') {
  const root = join(base, `root-${counter++}`);
  const events: CorruptionEvent[] = [];
  const store = createFileOffloadStore({
    root,
    corruption,
    onCorruption: (event) => events.push(event),
  });
  const pathOf = (id: string) => join(scopeFolder(root, scope), 'offload', `${id}.json`);
  return { store, events, pathOf };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('Expected the promise to reject.');
}

describe('file offload store', () => {
  it('writes one file per id, named by the content hash', async () => {
    const { store, pathOf } = setup();
    const id = await store.put(scope, message);
    expect(id).toBe(offloadId(message));
    expect(JSON.parse(await readFile(pathOf(id), 'utf8'))).toMatchObject({ id, message });
  });

  it('treats content that no longer matches its id as damaged: kept aside, reported, not returned', async () => {
    const { store, events, pathOf } = setup();
    const id = await store.put(scope, message);
    const tampered = JSON.stringify({
      id,
      createdAt: '2026-01-01T00:00:00.000Z',
      message: { role: 'assistant', content: 'tampered' },
    });
    await writeFile(pathOf(id), tampered);
    expect(NotFoundError.isInstance(await rejection(store.get(scope, id)))).toBe(true);
    expect(events).toHaveLength(1);
    expect(await readFile(events[0]!.quarantinedPath, 'utf8')).toBe(tampered);
    // Offloading the message again restores it.
    expect(await store.put(scope, message)).toBe(id);
    expect((await store.get(scope, id)).message).toEqual(message);
  });

  it('rewrites a damaged copy on put and reports it', async () => {
    const { store, events, pathOf } = setup();
    const id = await store.put(scope, message);
    await writeFile(pathOf(id), '{"id":');
    expect(await store.put(scope, message)).toBe(id);
    expect(events).toHaveLength(1);
    expect((await store.get(scope, id)).message).toEqual(message);
  });

  it('throws CorruptDataError in strict mode', async () => {
    const { store, pathOf } = setup('strict');
    const id = await store.put(scope, message);
    await writeFile(pathOf(id), 'garbage');
    expect(CorruptDataError.isInstance(await rejection(store.get(scope, id)))).toBe(true);
    expect(NotFoundError.isInstance(await rejection(store.get(scope, id)))).toBe(true);
  });
});

describe('file offload store: a compaction offloading several messages writes one pack', () => {
  const messages = (label: string, count: number): Message[] =>
    Array.from({ length: count }, (_, index) => ({
      role: 'user',
      content: `${label} result ${index}: ${'é 東京 '.repeat(index + 1)}`,
    }));
  const entries = (list: Message[]) => list.map((item) => ({ id: offloadId(item), message: item }));

  async function setupPacks() {
    const context = setup();
    const folder = join(scopeFolder(context.pathOf('x').split('/scopes/')[0]!, scope), 'offload');
    const putMany = contentAddressedPut(context.store)!;
    const files = async () => (await readdir(folder)).sort();
    // A new store on the same root: nothing cached, as in another process.
    const reopened = () =>
      createFileOffloadStore({ root: context.pathOf('x').split('/scopes/')[0]! });
    return { ...context, folder, putMany, files, reopened };
  }

  it('writes several new messages as one pack whose records another store reads back', async () => {
    const { putMany, files, reopened } = await setupPacks();
    const list = messages('a', 6);
    await putMany(scope, entries(list));
    const names = await files();
    expect(names.filter((name) => name.endsWith('.pack'))).toHaveLength(1);
    expect(names.filter((name) => name.endsWith('.json'))).toEqual([]);
    const other = reopened();
    for (const item of list) {
      expect((await other.get(scope, offloadId(item))).message).toEqual(item);
    }
  });

  it('keeps one file per message for a few, and stores nothing twice', async () => {
    const { putMany, files } = await setupPacks();
    const few = messages('b', 3);
    await putMany(scope, entries(few));
    expect((await files()).filter((name) => name.endsWith('.json'))).toHaveLength(3);
    const many = messages('c', 5);
    await putMany(scope, entries(many));
    const before = await files();
    // Again, with the few and the many mixed: everything is there already.
    await putMany(scope, entries([...many, ...few]));
    expect(await files()).toEqual(before);
  });

  it('removes the temporary files a crashed write left behind, not those of a live write', async () => {
    const { putMany, folder, files } = await setupPacks();
    await mkdir(folder, { recursive: true });
    const hourAgo = new Date(Date.now() - 60 * 60 * 1000);
    const leftovers = ['off_0123456789abcdef.json.123', 'pack_0123456789abcdef.pack.4567'];
    const live = 'pack_fedcba9876543210.pack.89';
    const unrelated = 'notes.json.123';
    for (const name of [...leftovers, live, unrelated]) {
      await writeFile(join(folder, name), 'partial');
      if (name !== live) await utimes(join(folder, name), hourAgo, hourAgo);
    }
    await putMany(scope, entries(messages('l', 5)));
    const names = await files();
    for (const name of leftovers) expect(names).not.toContain(name);
    expect(names).toContain(live);
    expect(names).toContain(unrelated);
  });

  it('round-trips a record larger than a write piece inside a pack', async () => {
    const { putMany, reopened } = await setupPacks();
    const big: Message = { role: 'user', content: 'x'.repeat(3 << 20) };
    const list = [...messages('d', 4), big];
    await putMany(scope, entries(list));
    expect((await reopened().get(scope, offloadId(big))).message).toEqual(big);
    expect((await reopened().get(scope, offloadId(list[2]!))).message).toEqual(list[2]);
  });

  it('deletes a packed message and keeps the others', async () => {
    const { store, putMany, files, reopened } = await setupPacks();
    const list = messages('e', 5);
    await putMany(scope, entries(list));
    const [gone, ...kept] = list;
    await store.delete(scope, offloadId(gone!));
    expect(NotFoundError.isInstance(await rejection(store.get(scope, offloadId(gone!))))).toBe(
      true,
    );
    const other = reopened();
    expect(NotFoundError.isInstance(await rejection(other.get(scope, offloadId(gone!))))).toBe(
      true,
    );
    for (const item of kept)
      expect((await other.get(scope, offloadId(item))).message).toEqual(item);
    expect((await files()).filter((name) => name.endsWith('.pack'))).toHaveLength(1);
  });

  it('reports a damaged packed record and still reads the other records', async () => {
    const { store, events, putMany, folder, files } = await setupPacks();
    const list = messages('f', 5);
    await putMany(scope, entries(list));
    const pack = join(folder, (await files()).find((name) => name.endsWith('.pack'))!);
    const text = await readFile(pack, 'utf8');
    // Change one character of the third record: it no longer matches its id.
    const third = text.split('\n')[2]!;
    await writeFile(pack, text.replace(third, third.replace('f result 2', 'f result 9')));
    expect(NotFoundError.isInstance(await rejection(store.get(scope, offloadId(list[2]!))))).toBe(
      true,
    );
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ path: pack, recoveredRecords: 4, droppedRecords: 1 });
    expect((await store.get(scope, offloadId(list[3]!))).message).toEqual(list[3]);
    // Repaired once: the pack was written again without the damaged record and its copy kept
    // aside, so another process reads the rest and has nothing to report.
    const names = await files();
    expect(names.filter((name) => name.endsWith('.pack'))).toHaveLength(1);
    expect(names).not.toContain(pack.split('/').pop());
    expect(names.filter((name) => name.includes('.corrupt-'))).toHaveLength(1);
    const later: CorruptionEvent[] = [];
    const other = createFileOffloadStore({
      root: folder.split('/scopes/')[0]!,
      onCorruption: (event) => later.push(event),
    });
    for (const [index, item] of list.entries()) {
      if (index === 2) {
        expect(NotFoundError.isInstance(await rejection(other.get(scope, offloadId(item))))).toBe(
          true,
        );
      } else {
        expect((await other.get(scope, offloadId(item))).message).toEqual(item);
      }
    }
    expect(later).toEqual([]);
  });

  it('reports the unreadable records a delete meets, and keeps the rest', async () => {
    const { store, events, putMany, folder, files } = await setupPacks();
    const list = messages('m', 5);
    await putMany(scope, entries(list));
    const pack = join(folder, (await files()).find((name) => name.endsWith('.pack'))!);
    const text = await readFile(pack, 'utf8');
    await writeFile(pack, text.replace('m result 2', 'm result 8'));
    await store.delete(scope, offloadId(list[0]!));
    expect(events).toMatchObject([{ path: pack, recoveredRecords: 3, droppedRecords: 1 }]);
    for (const [index, item] of list.entries()) {
      if (index === 0 || index === 2) {
        expect(NotFoundError.isInstance(await rejection(store.get(scope, offloadId(item))))).toBe(
          true,
        );
      } else {
        expect((await store.get(scope, offloadId(item))).message).toEqual(item);
      }
    }
    expect(events).toHaveLength(1);
  });

  it('finds the records of a pack whose index is damaged, and reports it', async () => {
    const { putMany, folder, files } = await setupPacks();
    const list = messages('g', 4);
    await putMany(scope, entries(list));
    const pack = join(folder, (await files()).find((name) => name.endsWith('.pack'))!);
    const text = await readFile(pack, 'utf8');
    await writeFile(pack, text.slice(0, -20));
    const events: CorruptionEvent[] = [];
    const other = createFileOffloadStore({
      root: folder.split('/scopes/')[0]!,
      onCorruption: (event) => events.push(event),
    });
    for (const item of list)
      expect((await other.get(scope, offloadId(item))).message).toEqual(item);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ path: pack, recoveredRecords: 4, droppedRecords: 0 });
    // The same records give the same pack name: the damaged pack was replaced by a whole one.
    const names = await files();
    expect(names.filter((name) => name.endsWith('.pack'))).toEqual([pack.split('/').pop()]);
    expect(names.filter((name) => name.includes('.corrupt-'))).toHaveLength(1);
    const later: CorruptionEvent[] = [];
    const third = createFileOffloadStore({
      root: folder.split('/scopes/')[0]!,
      onCorruption: (event) => later.push(event),
    });
    for (const item of list)
      expect((await third.get(scope, offloadId(item))).message).toEqual(item);
    expect(later).toEqual([]);
  });

  it('repairs a pack with a damaged index and a damaged record before a batch write reads it', async () => {
    const { putMany, folder, files } = await setupPacks();
    const list = messages('k', 5);
    await putMany(scope, entries(list));
    const pack = join(folder, (await files()).find((name) => name.endsWith('.pack'))!);
    const text = await readFile(pack, 'utf8');
    await writeFile(pack, text.replace('k result 3', 'k result 8').slice(0, -20));
    const events: CorruptionEvent[] = [];
    const other = createFileOffloadStore({
      root: folder.split('/scopes/')[0]!,
      onCorruption: (event) => events.push(event),
    });
    // The batch path lists what is packed: the intact records are not written again, the
    // damaged one is (it no longer reads), and the repair is reported once.
    await contentAddressedPut(other)!(scope, entries(list));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ path: pack, droppedRecords: 1, recoveredRecords: 4 });
    for (const item of list)
      expect((await other.get(scope, offloadId(item))).message).toEqual(item);
    const names = await files();
    expect(names.filter((name) => name.endsWith('.json'))).toEqual([`${offloadId(list[3]!)}.json`]);
    expect(names.filter((name) => name.endsWith('.pack'))).toHaveLength(1);
  });

  it('throws CorruptDataError for a damaged packed record in strict mode', async () => {
    const { putMany, folder, files } = await setupPacks();
    const list = messages('h', 4);
    await putMany(scope, entries(list));
    const pack = join(folder, (await files()).find((name) => name.endsWith('.pack'))!);
    const text = await readFile(pack, 'utf8');
    await writeFile(pack, text.replace('h result 1', 'h result 7'));
    const strict = createFileOffloadStore({
      root: folder.split('/scopes/')[0]!,
      corruption: 'strict',
    });
    const error = await rejection(strict.get(scope, offloadId(list[1]!)));
    expect(CorruptDataError.isInstance(error)).toBe(true);
    expect((await strict.get(scope, offloadId(list[0]!))).message).toEqual(list[0]);
    // The next call sees the recovered data: the damaged record is gone, not damaged again.
    expect(NotFoundError.isInstance(await rejection(strict.get(scope, offloadId(list[1]!))))).toBe(
      true,
    );
  });
});

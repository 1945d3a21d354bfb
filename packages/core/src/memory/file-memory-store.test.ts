import { appendFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scope } from '../contracts/index.js';
import { CorruptDataError, StorageError } from '../errors/index.js';
import { type CorruptionEvent, scopeFolder } from '../storage/index.js';
import { createFileMemoryStore } from './index.js';

let base: string;
let counter = 0;
const scope: Scope = { userId: 'u1' };

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'ctxmem-file-memory-'));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

function setup(corruption: 'recover' | 'strict' = 'recover') {
  const root = join(base, `root-${counter++}`);
  const events: CorruptionEvent[] = [];
  const store = createFileMemoryStore({
    root,
    corruption,
    onCorruption: (event) => events.push(event),
  });
  return { root, store, events, path: join(scopeFolder(root, scope), 'cards.jsonl') };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('Expected the promise to reject.');
}

describe('file memory store', () => {
  it('keeps cards in an append-only log: a header, then one line per change', async () => {
    const { store, path, root } = setup();
    const cards = await store.add(scope, [{ content: 'first' }, { content: 'second' }]);
    await store.add(scope, [{ content: 'first' }]);
    const [third] = await store.add(scope, [{ content: 'third' }]);
    await store.remove(scope, [cards[0]!.id]);
    const lines = (await readFile(path, 'utf8')).split('\n');
    expect(lines.pop()).toBe('');
    expect(JSON.parse(lines[0]!)).toMatchObject({ format: 'ctxmem-memory-log', version: 2 });
    // The duplicate wrote nothing.
    expect(lines.slice(1).map((line) => JSON.parse(line))).toEqual([
      { put: cards },
      { put: [third] },
      { remove: [cards[0]!.id] },
    ]);
    // A store opened later (another process) sees the same cards.
    expect(await createFileMemoryStore({ root }).list(scope)).toEqual([cards[1], third]);
  });

  it('writes the older card of a supersession as a put with supersededBy', async () => {
    const { store, path, root } = setup();
    const [python] = await store.add(scope, [
      { content: 'I prefer Python for scripts', type: 'preference' },
    ]);
    const [rust] = await store.add(scope, [
      { content: 'I prefer Rust for scripts', type: 'preference' },
    ]);
    const last = (await readFile(path, 'utf8')).trim().split('\n').at(-1)!;
    expect(JSON.parse(last)).toEqual({
      put: [{ ...python, supersededBy: rust!.id, updatedAt: rust!.updatedAt }, rust],
    });
    const fresh = createFileMemoryStore({ root });
    expect(await fresh.list(scope)).toEqual([rust]);
    expect((await fresh.get(scope, python!.id)).supersededBy).toBe(rust!.id);
  });

  it('compacts the log once most of its entries are replaced or removed ones', async () => {
    const { store, path, root } = setup();
    const cards = await store.add(
      scope,
      Array.from({ length: 600 }, (_, index) => ({ content: `note number ${index}` })),
    );
    const sizeBefore = (await readFile(path, 'utf8')).length;
    const ids = cards.map((card) => card.id);
    // A little garbage stays: rewriting on every removal would make removals linear.
    await store.remove(scope, ids.slice(0, 100));
    expect((await readFile(path, 'utf8')).split('\n')).toHaveLength(4);
    await store.remove(scope, ids.slice(100, 590));
    const text = await readFile(path, 'utf8');
    expect(text.length).toBeLessThan(sizeBefore / 10);
    expect(text.split('\n')).toHaveLength(3);
    const survivors = cards.slice(590);
    expect(await store.list(scope)).toEqual(survivors);
    expect(await createFileMemoryStore({ root }).list(scope)).toEqual(survivors);
  });

  it('follows other processes: their appends, and a rewrite of the log', async () => {
    const { store, root } = setup();
    const other = createFileMemoryStore({ root });
    const [first] = await store.add(scope, [{ content: 'first' }]);
    expect(await other.list(scope)).toEqual([first]);
    const many = await other.add(
      scope,
      Array.from({ length: 600 }, (_, index) => ({ content: `bulk note ${index}` })),
    );
    expect(await store.list(scope)).toHaveLength(601);
    // Enough removals for the other store to compact (rewrite) the log.
    await other.remove(
      scope,
      many.map((card) => card.id),
    );
    expect(await store.list(scope)).toEqual([first]);
    const [second] = await store.add(scope, [{ content: 'second' }]);
    expect(await other.list(scope)).toEqual([first, second]);
  });

  it('ignores an unfinished last line (a crashed write) and cuts it off on the next write', async () => {
    const { store, path, events } = setup();
    const [one] = await store.add(scope, [{ content: 'one' }]);
    await appendFile(path, '{"put":[{"id":"half');
    expect(await store.list(scope)).toEqual([one]);
    expect(
      await createFileMemoryStore({ root: join(path, '..', '..', '..', '..', '..') }).list(scope),
    ).toEqual([one]);
    const [two] = await store.add(scope, [{ content: 'two' }]);
    expect(
      await createFileMemoryStore({ root: join(path, '..', '..', '..', '..', '..') }).list(scope),
    ).toEqual([one, two]);
    expect((await readFile(path, 'utf8')).includes('half')).toBe(false);
    expect(events).toEqual([]);
  });

  it('migrates the cards.json of an earlier version into the log', async () => {
    const { store, root } = setup();
    const folder = scopeFolder(root, scope);
    const card = {
      id: '11111111-1111-4111-8111-111111111111',
      content: 'kept from before',
      type: 'fact',
      tags: [],
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
      scope: { userId: 'u1' },
    };
    await mkdir(folder, { recursive: true });
    await writeFile(
      join(folder, 'cards.json'),
      `{"format":"ctxmem-memory-cards","version":1,"cards":[\n${JSON.stringify(card)}\n]}\n`,
    );
    expect(await store.list(scope)).toEqual([card]);
    expect(await readdir(folder)).not.toContain('cards.json');
    const [added] = await store.add(scope, [{ content: 'added after' }]);
    expect(await createFileMemoryStore({ root }).list(scope)).toEqual([card, added]);
  });

  it('sees writes of another store instance on the same root (another process)', async () => {
    const { store, root } = setup();
    const other = createFileMemoryStore({ root });
    const [first] = await store.add(scope, [{ content: 'first' }]);
    expect(await other.list(scope)).toEqual([first]);
    const [second] = await store.add(scope, [{ content: 'second' }]);
    expect(await other.list(scope)).toEqual([first, second]);
    await other.remove(scope, [first!.id]);
    expect(await store.list(scope)).toEqual([second]);
    expect(await store.add(scope, [{ content: 'first' }])).not.toEqual([first]);
  });

  it('recovers from a damaged complete line: keeps the rest, reports, rewrites the log', async () => {
    const { store, path, events } = setup();
    const [one] = await store.add(scope, [{ content: 'one' }]);
    await store.add(scope, [{ content: 'two' }]);
    const [three] = await store.add(scope, [{ content: 'three' }]);
    const lines = (await readFile(path, 'utf8')).split('\n');
    lines[2] = `${lines[2]!.slice(0, 20)}`;
    const damaged = lines.join('\n');
    await writeFile(path, damaged);

    expect(await store.list(scope)).toEqual([one, three]);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ path, recoveredRecords: 2, droppedRecords: 1 });
    expect(await readFile(events[0]!.quarantinedPath, 'utf8')).toBe(damaged);
    // The log was rewritten with what was recovered.
    expect((await readFile(path, 'utf8')).split('\n')).toHaveLength(3);
    await store.add(scope, [{ content: 'four' }]);
    expect(events).toHaveLength(1);
    expect(await store.list(scope)).toHaveLength(3);
  });

  it('reports damage that another process wrote after this one read the log', async () => {
    const { store, path, events } = setup();
    const [one] = await store.add(scope, [{ content: 'one' }]);
    expect(await store.list(scope)).toEqual([one]);
    await appendFile(path, 'not a record\n');
    expect(await store.list(scope)).toEqual([one]);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ recoveredRecords: 1, droppedRecords: 1 });
  });

  it('reports an empty or garbage file instead of wiping it silently', async () => {
    const { store, path, events } = setup();
    await mkdir(join(path, '..'), { recursive: true });
    await writeFile(path, '\u0000\u0000\u0000');
    expect(await store.list(scope)).toEqual([]);
    expect(events).toHaveLength(1);
    expect(await readFile(events[0]!.quarantinedPath, 'utf8')).toBe('\u0000\u0000\u0000');
  });

  it('drops cards that belong to another scope as damaged', async () => {
    const { store, path, events } = setup();
    const [card] = await store.add(scope, [{ content: 'mine' }]);
    const foreign = {
      ...card!,
      id: '11111111-1111-4111-8111-111111111111',
      scope: { userId: 'intruder' },
    };
    await appendFile(path, `${JSON.stringify({ put: [foreign] })}\n`);
    expect(await store.list(scope)).toEqual([card]);
    expect(events[0]).toMatchObject({ droppedRecords: 1 });
  });

  it('throws CorruptDataError in strict mode, after keeping the damaged copy', async () => {
    const { store, path } = setup('strict');
    await store.add(scope, [{ content: 'one' }]);
    await appendFile(path, '{"put":[{"id":\n');
    const error = await rejection(store.add(scope, [{ content: 'two' }]));
    expect(CorruptDataError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ path, recoveredRecords: 1 });
    const files = await readdir(join(path, '..'));
    expect(files.some((file) => file.startsWith('cards.jsonl.corrupt-'))).toBe(true);
    expect(await store.add(scope, [{ content: 'two' }])).toHaveLength(1);
  });

  it('fails with StorageError when a file is where the scope folder should be', async () => {
    const { store, root } = setup();
    await mkdir(join(root, 'scopes'), { recursive: true });
    await writeFile(join(scopeFolder(root, scope), '..', '..'), 'in the way');
    const error = await rejection(store.add(scope, [{ content: 'x' }]));
    expect(StorageError.isInstance(error)).toBe(true);
    expect(StorageError.isInstance(await rejection(store.list(scope)))).toBe(true);
  });

  it('clears temporary files left by a writer killed mid-write', async () => {
    const { store, path } = setup();
    await store.add(scope, [{ content: 'one' }]);
    await writeFile(`${path}.3141592653`, 'half a write');
    const fresh = createFileMemoryStore({ root: join(path, '..', '..', '..', '..', '..') });
    await fresh.add(scope, [{ content: 'two' }]);
    expect(
      (await readdir(join(path, '..'))).filter((file) => file.startsWith('cards.jsonl.')),
    ).toEqual([]);
  });

  it('defaults its root to .ctxmem in the working directory', async () => {
    const cwd = process.cwd();
    const folder = join(base, `cwd-${counter++}`);
    await mkdir(folder);
    process.chdir(folder);
    try {
      const store = createFileMemoryStore();
      await store.add(scope, [{ content: 'here' }]);
    } finally {
      process.chdir(cwd);
    }
    const text = await readFile(
      join(scopeFolder(join(folder, '.ctxmem'), scope), 'cards.jsonl'),
      'utf8',
    );
    expect(text).toContain('here');
  });
});

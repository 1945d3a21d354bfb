import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
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
  return { root, store, events, path: join(scopeFolder(root, scope), 'cards.json') };
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
  it('keeps cards in a JSON document with one card per line', async () => {
    const { store, path } = setup();
    const cards = await store.add(scope, [{ content: 'first' }, { content: 'second' }]);
    const text = await readFile(path, 'utf8');
    const document = JSON.parse(text) as { format: string; version: number; cards: unknown[] };
    expect(document).toEqual({ format: 'ctxmem-memory-cards', version: 1, cards });
    expect(text.split('\n')).toHaveLength(5);
    // A store opened later (another process) sees the same cards.
    expect(
      await createFileMemoryStore({ root: join(path, '..', '..', '..', '..', '..') }).list(scope),
    ).toEqual(cards);
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

  it('salvages the intact lines of a file that is no longer JSON', async () => {
    const { store, path, events } = setup();
    const cards = await store.add(scope, [
      { content: 'one' },
      { content: 'two' },
      { content: 'three' },
    ]);
    const lines = (await readFile(path, 'utf8')).split('\n');
    lines[2] = `${lines[2]!.slice(0, 20)}`;
    const damaged = lines.join('\n');
    await writeFile(path, damaged);

    expect(await store.list(scope)).toEqual([cards[0], cards[2]]);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ path, recoveredRecords: 2, droppedRecords: 1 });
    expect(await readFile(events[0]!.quarantinedPath, 'utf8')).toBe(damaged);
    // The file was rewritten as valid JSON with what was recovered.
    expect((JSON.parse(await readFile(path, 'utf8')) as { cards: unknown[] }).cards).toHaveLength(
      2,
    );
    await store.add(scope, [{ content: 'four' }]);
    expect(events).toHaveLength(1);
    expect(await store.list(scope)).toHaveLength(3);
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
    const document = JSON.parse(await readFile(path, 'utf8')) as { cards: unknown[] };
    document.cards.push(foreign);
    await writeFile(path, JSON.stringify(document));
    expect(await store.list(scope)).toEqual([card]);
    expect(events[0]).toMatchObject({ droppedRecords: 1 });
  });

  it('throws CorruptDataError in strict mode, after keeping the damaged copy', async () => {
    const { store, path } = setup('strict');
    await store.add(scope, [{ content: 'one' }]);
    await writeFile(path, '{"format":"ctxmem-memory-cards","version":1,"cards":[\n{"id":');
    const error = await rejection(store.add(scope, [{ content: 'two' }]));
    expect(CorruptDataError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ path, recoveredRecords: 0 });
    const files = await readdir(join(path, '..'));
    expect(files.some((file) => file.startsWith('cards.json.corrupt-'))).toBe(true);
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
      (await readdir(join(path, '..'))).filter((file) => file.startsWith('cards.json.')),
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
      join(scopeFolder(join(folder, '.ctxmem'), scope), 'cards.json'),
      'utf8',
    );
    expect(text).toContain('here');
  });
});

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message, Scope } from '../contracts/index.js';
import { CorruptDataError, NotFoundError } from '../errors/index.js';
import { type CorruptionEvent, scopeFolder } from '../storage/index.js';
import { createFileOffloadStore, offloadId } from './index.js';

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

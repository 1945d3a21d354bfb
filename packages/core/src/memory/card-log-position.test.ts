import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scope } from '../contracts/index.js';
import { scopeFolder } from '../storage/index.js';
import { checkLogPosition, readLogChangesSince } from './card-log-position.js';
import { createFileMemoryStore } from './file-memory-store.js';
import { readMemoryChanges } from './memory-change-feed.js';

let base: string;
let counter = 0;
const scope: Scope = { userId: 'u1' };

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'ctxmem-log-position-'));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

/** A store with two cards, the checked position of what its change feed returned, and its log. */
async function setup() {
  const root = join(base, `root-${counter++}`);
  const store = createFileMemoryStore({ root });
  await store.add(scope, [
    { content: 'The user likes green tea' },
    { content: 'Office in Berlin' },
  ]);
  const changes = await readMemoryChanges(store, scope);
  const path = join(scopeFolder(root, scope), 'cards.jsonl');
  const position = await checkLogPosition(path, changes!.log!);
  expect(position).toBeDefined();
  return { store, path, position: position! };
}

describe('card log positions', () => {
  it('reads only what was appended since a position, and moves it', async () => {
    const { store, path, position } = await setup();
    expect(await readLogChangesSince(path, scope, position)).toMatchObject({
      changed: [],
      removed: [],
      position: { offset: position.offset },
    });
    const [added] = await store.add(scope, [{ content: 'Deploys happen on Tuesdays' }]);
    const [, office] = (await store.list(scope)).filter((card) => card.id !== added!.id);
    await store.remove(scope, [office!.id]);
    const changes = await readLogChangesSince(path, scope, position);
    expect(changes?.changed.map((card) => card.content)).toEqual(['Deploys happen on Tuesdays']);
    expect(changes?.changed[0]?.scope).toEqual(scope);
    expect(changes?.removed).toEqual([office!.id]);
    expect(changes!.position.offset).toBeGreaterThan(position.offset);
    const again = await readLogChangesSince(path, scope, changes!.position);
    expect(again).toMatchObject({ changed: [], removed: [] });
  });

  it('gives up on a log of another generation, a shorter one, or other bytes before the position', async () => {
    const { path, position } = await setup();
    const text = await readFile(path, 'utf8');
    await writeFile(path, text.replace(/"generation":"[^"]+"/, '"generation":"other"'));
    expect(await readLogChangesSince(path, scope, position)).toBeUndefined();
    expect(await checkLogPosition(path, position)).toBeUndefined();

    await writeFile(path, text.replace('green tea', 'black tea'));
    expect(await readLogChangesSince(path, scope, position)).toBeUndefined();

    await writeFile(path, text.slice(0, -5));
    expect(await readLogChangesSince(path, scope, position)).toBeUndefined();
    await rm(path);
    expect(await readLogChangesSince(path, scope, position)).toBeUndefined();
  });

  it('leaves a damaged appended line to the store (which recovers it)', async () => {
    const { path, position } = await setup();
    await writeFile(path, `${await readFile(path, 'utf8')}{"put":[{"id":1}]}\n`);
    expect(await readLogChangesSince(path, scope, position)).toBeUndefined();
  });
});

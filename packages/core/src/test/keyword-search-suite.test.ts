import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { createFileMemoryStore, createInMemoryMemoryStore } from '../memory/index.js';
import { testKeywordSearch } from './keyword-search-suite.js';

// The reference the drivers' keyword search is held to: core's own stores.
let root: string;
let counter = 0;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'ctxmem-keywords-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

testKeywordSearch('in-memory', ({ clock }) => ({ store: createInMemoryMemoryStore({ clock }) }));
testKeywordSearch('file', ({ clock }) => ({
  store: createFileMemoryStore({ clock, root: join(root, `store-${counter++}`) }),
}));

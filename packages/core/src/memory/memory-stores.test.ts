import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { testMemoryStore } from '../test/memory-store-suite.js';
import { createFileMemoryStore, createInMemoryMemoryStore } from './index.js';

let root: string;
let counter = 0;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'ctxmem-memory-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

testMemoryStore('in-memory', (options) => createInMemoryMemoryStore(options));
testMemoryStore('file', (options) =>
  createFileMemoryStore({ ...options, root: join(root, `store-${counter++}`) }),
);

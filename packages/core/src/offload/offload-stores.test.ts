import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { testOffloadStore } from '../test/offload-store-suite.js';
import { createFileOffloadStore, createInMemoryOffloadStore } from './index.js';

let root: string;
let counter = 0;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'ctxmem-offload-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

testOffloadStore('in-memory', (options) => createInMemoryOffloadStore(options));
testOffloadStore('file', (options) =>
  createFileOffloadStore({ ...options, root: join(root, `store-${counter++}`) }),
);

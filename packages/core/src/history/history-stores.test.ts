import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { testHistoryStore } from '../test/history-store-suite.js';
import { createFileHistoryStore, createInMemoryHistoryStore } from './index.js';

let root: string;
let counter = 0;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'ctxmem-history-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

testHistoryStore('in-memory', (options) => createInMemoryHistoryStore(options));
// The five required methods only: core falls back from the optional count and readTurns.
testHistoryStore('in-memory, required methods only', (options) => {
  const { count: _count, readTurns: _readTurns, ...required } = createInMemoryHistoryStore(options);
  return required;
});
testHistoryStore('file', (options) =>
  createFileHistoryStore({ ...options, root: join(root, `store-${counter++}`) }),
);

/**
 * Several processes serving one conversation through the file history store, as instances of an
 * app behind a load balancer do when requests are retried or hedged: each process serves every
 * turn with its own context manager, at its own pace, and the store keeps each message once.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bundledFixture } from '../../../../test/setup/fixture-bundle.js';
import { releaseTogether, startWriter } from '../../../../test/setup/writer-process.js';
import { auditStoredConversation } from '../test/shared-conversation.js';
import { createFileHistoryStore } from './index.js';

const fixture = await bundledFixture(new URL('../test/fixtures/store-writer.ts', import.meta.url));
const scope = { userId: 'crash-test', sessionId: 'one' };
const PROCESSES = 4;

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'ctxmem-history-processes-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

it(`stores each message once when ${PROCESSES} processes serve every turn of one conversation`, async () => {
  const writers = Array.from({ length: PROCESSES }, () =>
    startWriter(fixture, { mode: 'converse', root }),
  );
  await releaseTogether(writers);
  await Promise.all(writers.map((writer) => writer.waitFor('done')));
  const codes = await Promise.all(writers.map((writer) => writer.exited));
  expect(codes, writers.map((writer) => writer.errors()).join('\n')).toEqual(writers.map(() => 0));
  const audit = await auditStoredConversation(createFileHistoryStore({ root }), scope);
  expect(audit).toEqual({ expected: 61, stored: 61, duplicates: 0, losses: 0, exact: true });
}, 120_000);

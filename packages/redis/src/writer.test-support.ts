/**
 * Child process for the multi-process tests of the Redis stores. Run as
 * `node --import tsx writer.test-support.ts '<json>'` where the JSON is one of
 * - `{ "mode": "write", "url", "prefix", "label", "count"? }`: adds a card and appends a message
 *   per step, printing `card <content>` / `message <index> <content>` once each write is
 *   acknowledged, then `done`;
 * - `{ "mode": "state", "url", "prefix", "label", "count", "startAt" }`: `count` times reads the
 *   working state and writes it back one message longer at the version it read, retrying on
 *   `ConflictError`; prints `won <version>` for each write that went through.
 * - `{ "mode": "converse", "url", "prefix", "startAt" }`: from `startAt` (epoch ms), serves every
 *   turn of core's shared 30-turn conversation with its own context manager (see
 *   `playSharedConversation`).
 * It prints `ready` once connected.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ConflictError } from '@ctxmem/core';
import { playSharedConversation } from '@ctxmem/core/test';
import { createRedisStores } from './create-redis-stores.js';

type Job =
  | { mode: 'write'; url: string; prefix: string; label: string; count?: number }
  | { mode: 'state'; url: string; prefix: string; label: string; count: number; startAt: number }
  | { mode: 'converse'; url: string; prefix: string; startAt: number };

const job = JSON.parse(process.argv[2] ?? '{}') as Job;
const print = (line: string) =>
  new Promise<void>((resolve) => {
    process.stdout.write(`${line}\n`, () => resolve());
  });

const scope = { userId: 'process-test', sessionId: 'one' };
const stores = createRedisStores({ url: job.url, prefix: job.prefix });
await stores.history.count(scope);
await print('ready');

if (job.mode === 'write') {
  const count = job.count ?? Number.POSITIVE_INFINITY;
  for (let step = 0; step < count; step++) {
    const content = `note ${job.label} ${step}`;
    await stores.memory.add(scope, [{ content, type: 'todo' }]);
    await print(`card ${content}`);
    const [stored] = await stores.history.append(scope, [
      { role: 'user', content: `message ${job.label} ${step}` },
    ]);
    await print(`message ${stored!.index} message ${job.label} ${step}`);
  }
} else if (job.mode === 'converse') {
  await sleep(Math.max(0, job.startAt - Date.now()));
  await playSharedConversation(stores.history, { scope });
} else if (job.mode === 'state') {
  await sleep(Math.max(0, job.startAt - Date.now()));
  for (let step = 0; step < job.count; step++) {
    for (;;) {
      const current = await stores.history.getState(scope);
      const messages = [
        ...(current?.messages ?? []),
        { role: 'user' as const, content: `${job.label} ${step}` },
      ];
      try {
        const version = await stores.history.setState(
          scope,
          { summarizedCount: 0, messages, cycle: 0 },
          current?.version ?? 0,
        );
        await print(`won ${version}`);
        break;
      } catch (error) {
        if (!ConflictError.isInstance(error)) throw error;
      }
    }
  }
}
await print('done');
await stores.close();

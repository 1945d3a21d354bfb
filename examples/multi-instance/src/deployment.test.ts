import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { bundledFixture } from '../../../test/setup/fixture-bundle.js';
import {
  missingServerMessage,
  stopTestServices,
  testServices,
} from '../../../test/setup/services.js';
import { promptProblem, runLoad } from './load.js';

const services = await testServices();
afterAll(stopTestServices);
// Six instances start in this file: as one bundle run by plain node, not through tsx.
const instanceEntry = await bundledFixture(new URL('./app-server.ts', import.meta.url));

describe('three instances behind a round-robin proxy', () => {
  for (const store of ['postgres', 'redis'] as const) {
    const url = store === 'postgres' ? services.postgresUrl : services.redisUrl;
    if (!url) {
      it.skip(
        missingServerMessage(store === 'postgres' ? 'PostgreSQL' : 'Redis', services.problems),
        () => {},
      );
      continue;
    }
    it(`serves hedged and round-robin requests on ${store}: valid prompts, nothing duplicated or lost`, async () => {
      const namespace =
        store === 'postgres'
          ? `ctxmem_load_${randomUUID().replaceAll('-', '').slice(0, 12)}`
          : `ctxmem-load-${randomUUID().slice(0, 12)}`;
      const report = await runLoad({
        store,
        url,
        namespace,
        sessions: 10,
        turns: 12,
        concurrency: 5,
        hedgeEvery: 2,
        instanceEntry,
      });
      expect(report.problems).toEqual([]);
      expect(report).toMatchObject({
        requests: 10 * 12 + 10 * 6,
        hedgedTurns: 60,
        failedRequests: 0,
        invalidPrompts: 0,
        duplicates: 0,
        losses: 0,
        misordered: 0,
      });
      // The sessions outgrow the window, so the instances compact (and share the summaries).
      expect(report.compactedResponses).toBeGreaterThan(0);
    }, 240_000);
  }
});

describe('promptProblem', () => {
  const system = { role: 'system' as const, content: 'You are the planning assistant of a team.' };
  const first = { role: 'user' as const, content: 'first' };
  const reply = { role: 'assistant' as const, content: 'reply' };
  const second = { role: 'user' as const, content: 'second' };
  const conversation = [system, first, reply, second];

  it('accepts the conversation itself, and flags each kind of invalid prompt', () => {
    expect(promptProblem(conversation, conversation, 100)).toBeUndefined();
    expect(promptProblem([first, reply, second], conversation, 100)).toMatch(/system/u);
    expect(promptProblem([system, first, reply], conversation, 100)).toMatch(/turn/u);
    expect(promptProblem(conversation, conversation, 5_000)).toMatch(/window/u);
    expect(promptProblem([system, first, first, second], conversation, 100)).toMatch(/twice/u);
    expect(promptProblem([system, reply, first, second], conversation, 100)).toMatch(/order/u);
  });
});
